import * as sw from 'stopword';
for (const k of ['deu','spa','fra','por','rus','ita','nld']) console.log(k, sw[k].length, ['wo','was','wer','dónde','qué','où','quel','onde','qual','где','какая','что','кто','dove','waar'].filter(w=>sw[k].includes(w)).join(','));
console.log(sw.rus.join(' '));
console.log(sw.deu.slice(0,200).join(' '));
