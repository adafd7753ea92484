import type { ExplainedItem, RecallAnswer } from '../api.js';
import { h } from '../dom.js';
import { href, type Route } from '../route.js';
import { showError } from '../status.js';
import { appInput, dateText, field, metadataView, plural } from '../widgets.js';
import type { ViewContext } from './context.js';

/** The documented defaults of recall, shown in the form so that what is asked is what is seen. */
const DEFAULT_LIMIT = 5;
const DEFAULT_MIN_SCORE = 0.7;

/** Every number in recall's `explain` object, nested ones by dotted name: the console shows whatever parts it has. */
export function numericParts(value: unknown, prefix = ''): Array<[string, number]> {
  if (typeof value === 'number') return Number.isFinite(value) ? [[prefix || 'value', value]] : [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([name, inner]) => numericParts(inner, prefix ? `${prefix}.${name}` : name));
}

function scoreText(score: number): string {
  return score.toFixed(4);
}

function item(memory: ExplainedItem): HTMLElement {
  const parts = numericParts(memory.explain);
  return h(
    'li',
    { class: 'memory card recalled', attrs: { 'data-id': memory.id } },
    h(
      'div',
      { class: 'score' },
      h('strong', { attrs: { 'data-score': String(memory.score) } }, scoreText(memory.score)),
      h('meter', { attrs: { min: '0', max: '1', low: '0.5', high: String(DEFAULT_MIN_SCORE), optimum: '1', value: String(memory.score), 'aria-label': 'Score' } }),
    ),
    h(
      'div',
      { class: 'body' },
      h('p', { class: 'text' }, memory.text),
      h('p', { class: 'meta' }, h('span', { class: 'chip', attrs: { title: 'App' } }, memory.appId), dateText(memory.createdAt), h('code', { class: 'id' }, memory.id)),
      parts.length > 0
        ? h(
            'details',
            { class: 'explain' },
            h('summary', {}, 'Why this score'),
            h('dl', {}, ...parts.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, Number.isInteger(value) ? String(value) : value.toFixed(4))])),
          )
        : null,
      metadataView(memory.metadata),
    ),
  );
}

function results(answer: RecallAnswer, below: ExplainedItem[] | undefined, minScore: number): HTMLElement {
  return h(
    'div',
    { class: 'results' },
    h(
      'section',
      { class: 'returned', attrs: { 'aria-labelledby': 'returned-title' } },
      h('h2', { attrs: { id: 'returned-title' } }, `Returned: score \u2265 ${minScore}`),
      h('p', { class: 'muted' }, answer.memories.length === 0 ? 'Nothing reaches the threshold: an agent would get no memories.' : `What an agent gets: ${plural(answer.memories.length, 'memory', 'memories')}, best first.`),
      answer.memories.length > 0 ? h('ol', { class: 'memories' }, ...answer.memories.map(item)) : null,
      answer.context ? h('details', { class: 'context' }, h('summary', {}, 'Context string'), h('pre', {}, answer.context)) : null,
    ),
    below === undefined
      ? null
      : h(
          'section',
          { class: 'below', attrs: { 'aria-labelledby': 'below-title' } },
          h('h2', { attrs: { id: 'below-title' } }, `Below the threshold: score < ${minScore}`),
          h('p', { class: 'muted' }, below.length === 0 ? 'No other memory of this user scores above 0.' : 'Not returned, best first: what recall found but judged not relevant enough.'),
          below.length > 0 ? h('ol', { class: 'memories' }, ...below.map(item)) : null,
        ),
  );
}

/** A question for one user's memories: what recall returns at the chosen threshold, and what falls below it. */
export function recallView(ctx: ViewContext, route: Extract<Route, { page: 'recall' }>): HTMLElement {
  const userId = h('input', { attrs: { name: 'user', type: 'text', value: route.userId, autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off' }, flags: { required: true } });
  const query = h('textarea', { attrs: { name: 'query', rows: '2', placeholder: 'e.g. what can she not eat?' }, flags: { required: true } });
  const app = appInput(route.appId);
  const limit = h('input', { attrs: { name: 'limit', type: 'number', min: '1', max: '100', step: '1', value: String(DEFAULT_LIMIT) }, flags: { required: true } });
  const minScore = h('input', { attrs: { name: 'minScore', type: 'number', min: '0', max: '1', step: '0.01', value: String(DEFAULT_MIN_SCORE) }, flags: { required: true } });
  const submit = h('button', { attrs: { type: 'submit' } }, 'Recall');
  const output = h('div', { class: 'recall-output', attrs: { 'aria-live': 'polite' } });

  // Number inputs are sent as numbers, and left for the API to judge: its message says what is wrong.
  const numberOf = (input: HTMLInputElement): number => (input.value.trim() === '' ? Number.NaN : Number(input.value));

  const form = h(
    'form',
    { class: 'card recall-form', attrs: { role: 'search', novalidate: '' } },
    h('div', { class: 'grid' }, field('User', userId), field('App', app, 'optional')),
    field('Question', query),
    h('div', { class: 'grid narrow' }, field('Limit', limit, '1 to 100'), field('Minimum score', minScore, '0 to 1')),
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const threshold = numberOf(minScore);
    const ask = { userId: userId.value, query: query.value, appId: app.value.trim() || undefined, limit: numberOf(limit) };
    submit.disabled = true;
    output.replaceChildren(h('p', { class: 'muted' }, 'Recalling\u2026'));
    (async () => {
      const answer = await ctx.api.recall({ ...ask, minScore: threshold });
      // The same question without a threshold shows what the threshold held back.
      const below = threshold > 0 ? (await ctx.api.recall({ ...ask, minScore: 0 })).memories.filter((m) => m.score < threshold) : undefined;
      output.replaceChildren(results(answer, below, threshold));
    })()
      .catch((error: unknown) => {
        output.replaceChildren();
        showError(error);
      })
      .finally(() => {
        submit.disabled = false;
      });
  });

  return h(
    'section',
    { attrs: { 'aria-labelledby': 'recall-title' } },
    route.userId ? h('p', { class: 'crumbs' }, h('a', { attrs: { href: href({ page: 'user', userId: route.userId, appId: route.appId, pageNo: 0 }) } }, `\u2190 ${route.userId}`)) : null,
    h('h1', { attrs: { id: 'recall-title' } }, 'Recall'),
    h('p', { class: 'muted' }, 'Ask what an agent would ask: see the memories recall returns with their scores, and those it leaves out.'),
    form,
    output,
  );
}
