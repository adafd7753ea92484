import { detect, detectAll } from 'tinyld';
import { readFileSync } from 'node:fs';
for (const f of ['tools/eval/data/people-facts/memories.jsonl','tools/eval/data/people-facts/queries.jsonl','../shared/eval/locomo-facts-dev/memories.jsonl','../shared/eval/locomo-dev/queries.jsonl']) {
  const rows = readFileSync(f,'utf8').trim().split('\n').map(JSON.parse);
  const counts = {};
  const t0 = performance.now();
  for (const r of rows) { const l = detect(r.text ?? r.query) || '?'; counts[l]=(counts[l]??0)+1; }
  console.log(f, rows.length, ((performance.now()-t0)/rows.length).toFixed(3)+'ms', JSON.stringify(counts));
}
for (const s of ['Wo arbeitet Anna?','¿Qué no puede comer Ana?','Какая машина у Анны?','Anna fährt ein blaues Auto.','Où travaille Marie ?','Onde a Ana trabalha?','Maria is allergic to penicillin.','Diego is a die-hard Pumas UNAM fan.', 'What is Aiko allergic to?','Jonas plays cello.']) console.log(s, detect(s), JSON.stringify(detectAll(s).slice(0,3)));
