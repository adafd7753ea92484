import { h, type Child } from './dom.js';

/** A local date and time, with the exact ISO timestamp on hover. */
export function dateText(iso: string): HTMLTimeElement {
  const date = new Date(iso);
  const shown = Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { attrs: { datetime: iso, title: iso } }, shown);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/**
 * Asks before anything is deleted, in a modal of the page (not window.confirm, which a page can be made to spam
 * and which tests cannot tell from an injected alert). Resolves true only on the confirming button.
 */
export function confirmAction(options: { title: string; message: string; confirm: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', attrs: { 'aria-labelledby': 'confirm-title' } });
    const close = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    dialog.append(
      h('h2', { attrs: { id: 'confirm-title' } }, options.title),
      h('p', {}, options.message),
      h(
        'div',
        { class: 'actions' },
        h('button', { class: 'quiet', attrs: { type: 'button' }, on: { click: () => close(false) } }, 'Cancel'),
        h('button', { class: 'danger', attrs: { type: 'button', 'data-confirm': '' }, on: { click: () => close(true) } }, options.confirm),
      ),
    );
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** "Page 2 of 5 · 93 users" with Previous / Next links; "3 users" alone when they fit on one page. */
export function pager(options: { page: number; pageSize: number; total: number; noun: [one: string, many: string]; hrefOf: (page: number) => string }): HTMLElement {
  const pages = Math.max(1, Math.ceil(options.total / options.pageSize));
  const link = (label: string, page: number, enabled: boolean): Child =>
    enabled
      ? h('a', { class: 'button quiet', attrs: { href: options.hrefOf(page), rel: page < options.page ? 'prev' : 'next' } }, label)
      : h('span', { class: 'button quiet disabled', attrs: { 'aria-disabled': 'true' } }, label);
  const count = plural(options.total, ...options.noun);
  // One page: nothing to move to, only the count.
  if (pages === 1 && options.page === 0) return h('p', { class: 'pager muted' }, count);
  return h(
    'nav',
    { class: 'pager', attrs: { 'aria-label': 'Pages' } },
    link('\u2190 Previous', options.page - 1, options.page > 0),
    h('span', { class: 'muted' }, `Page ${options.page + 1} of ${pages} \u00b7 ${count}`),
    link('Next \u2192', options.page + 1, options.page + 1 < pages),
  );
}

/**
 * A memory's metadata: short objects inline as compact JSON, longer ones folded away, both as text. Empty: nothing.
 */
export function metadataView(metadata: Record<string, unknown>): HTMLElement | null {
  if (Object.keys(metadata).length === 0) return null;
  const compact = JSON.stringify(metadata);
  if (compact.length <= 80) return h('p', { class: 'metadata' }, h('code', { attrs: { title: 'Metadata' } }, compact));
  return h('details', { class: 'metadata' }, h('summary', {}, 'Metadata'), h('pre', {}, JSON.stringify(metadata, null, 2)));
}

/** A labelled input; the label wraps it, so no ids are needed. */
export function field(label: string, input: HTMLInputElement | HTMLTextAreaElement, hint?: string): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', { class: 'label' }, label), input, hint ? h('span', { class: 'hint' }, hint) : null);
}

/** The app slug or UUID filter most pages share; an empty value means every app the key can see. */
export function appInput(value: string): HTMLInputElement {
  return h('input', {
    attrs: { name: 'app', type: 'text', value, placeholder: 'every app', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off' },
  });
}
