import type { ListItem } from '../api.js';
import { h } from '../dom.js';
import { href, type Route } from '../route.js';
import { showError, showInfo } from '../status.js';
import { appInput, confirmAction, dateText, field, metadataView, pager, plural } from '../widgets.js';
import type { ViewContext } from './context.js';

const PAGE_SIZE = 20;

type UserRoute = Extract<Route, { page: 'user' }>;

/**
 * The hook for editing a memory: it needs `PATCH /v1/memories/:id`, which this server does not have yet. When it
 * exists, add `update(id, { text, metadata })` to Api and return a button here that turns the card's text into a
 * textarea and saves it; until then there is nothing to offer, and no button.
 */
function editControl(_memory: ListItem, _ctx: ViewContext): HTMLElement | null {
  return null;
}

/** One user's memories, newest first, a page at a time, with app, metadata and dates; delete one, some or all. */
export async function memoriesView(ctx: ViewContext, route: UserRoute): Promise<HTMLElement> {
  const appId = route.appId || undefined;
  const result = await ctx.api.listMemories({ userId: route.userId, appId, page: route.pageNo, pageSize: PAGE_SIZE });
  const selected = new Set<string>();

  /** After a delete: stay on this page unless it no longer exists. */
  const afterDelete = (deleted: number, what: string) => {
    showInfo(deleted === 0 ? `Nothing was deleted: ${what} no longer existed.` : `Deleted ${plural(deleted, 'memory', 'memories')}.`);
    const lastPage = Math.max(0, Math.ceil((result.total - deleted) / PAGE_SIZE) - 1);
    if (route.pageNo > lastPage) ctx.go({ ...route, pageNo: lastPage }, { keepStatus: true });
    else ctx.refresh();
  };
  const run = (action: () => Promise<void>) => () => {
    action().catch(showError);
  };

  const deleteSelected = h('button', { class: 'danger', attrs: { type: 'button', 'data-action': 'delete-selected' }, flags: { disabled: true } }, 'Delete selected');
  const selectAll = h('input', { attrs: { type: 'checkbox', 'aria-label': 'Select every memory on this page' } });
  const boxes: HTMLInputElement[] = [];
  const updateSelection = () => {
    deleteSelected.disabled = selected.size === 0;
    deleteSelected.textContent = selected.size === 0 ? 'Delete selected' : `Delete selected (${selected.size})`;
    selectAll.checked = boxes.length > 0 && selected.size === boxes.length;
    selectAll.indeterminate = selected.size > 0 && selected.size < boxes.length;
  };
  selectAll.addEventListener('change', () => {
    for (const box of boxes) {
      box.checked = selectAll.checked;
      if (box.checked) selected.add(box.value);
      else selected.delete(box.value);
    }
    updateSelection();
  });
  deleteSelected.addEventListener(
    'click',
    run(async () => {
      const ids = [...selected];
      const ok = await confirmAction({
        title: `Delete ${plural(ids.length, 'memory', 'memories')}?`,
        message: `The ${plural(ids.length, 'selected memory', 'selected memories')} of ${route.userId} will be deleted for good.`,
        confirm: 'Delete',
      });
      if (ok) afterDelete((await ctx.api.forgetMany(ids)).deleted, 'they');
    }),
  );

  const scope = appId ? ` in the app "${appId}"` : '';
  const deleteAll = h(
    'button',
    { class: 'danger', attrs: { type: 'button', 'data-action': 'delete-all' }, flags: { disabled: result.total === 0 } },
    `Delete all of this user${appId ? ' in this app' : ''}`,
  );
  deleteAll.addEventListener(
    'click',
    run(async () => {
      const ok = await confirmAction({
        title: `Delete every memory of ${route.userId}?`,
        message: `All ${plural(result.total, 'memory', 'memories')} of ${route.userId}${scope}${appId ? '' : ' (every app this key can see)'} will be deleted for good.`,
        confirm: 'Delete all',
      });
      if (ok) afterDelete((await ctx.api.forgetAll(route.userId, appId)).deleted, 'they');
    }),
  );

  const card = (memory: ListItem): HTMLElement => {
    const box = h('input', { attrs: { type: 'checkbox', value: memory.id, 'aria-label': 'Select this memory' } });
    boxes.push(box);
    box.addEventListener('change', () => {
      if (box.checked) selected.add(memory.id);
      else selected.delete(memory.id);
      updateSelection();
    });
    const remove = h('button', { class: 'danger quiet', attrs: { type: 'button', 'data-action': 'delete' } }, 'Delete');
    remove.addEventListener(
      'click',
      run(async () => {
        const ok = await confirmAction({ title: 'Delete this memory?', message: `\u201c${memory.text}\u201d will be deleted for good.`, confirm: 'Delete' });
        if (ok) afterDelete((await ctx.api.forget(memory.id)).deleted, 'it');
      }),
    );
    return h(
      'li',
      { class: 'memory card', attrs: { 'data-id': memory.id } },
      h('div', { class: 'select' }, box),
      h(
        'div',
        { class: 'body' },
        h('p', { class: 'text' }, memory.text),
        h('p', { class: 'meta' }, h('span', { class: 'chip', attrs: { title: 'App' } }, memory.appId), dateText(memory.createdAt), h('code', { class: 'id' }, memory.id)),
        metadataView(memory.metadata),
      ),
      h('div', { class: 'row-actions' }, editControl(memory, ctx), remove),
    );
  };

  const app = appInput(route.appId);
  const filter = h('form', { class: 'toolbar', attrs: { role: 'search' } }, field('App', app), h('button', { class: 'quiet', attrs: { type: 'submit' } }, 'Filter'));
  filter.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.go({ ...route, appId: app.value.trim(), pageNo: 0 });
  });

  const list =
    result.memories.length === 0
      ? h('p', { class: 'empty' }, result.total === 0 ? `${route.userId} has no memories${scope}.` : 'This page is past the end.')
      : h('ul', { class: 'memories' }, ...result.memories.map(card));

  const view = h(
    'section',
    { attrs: { 'aria-labelledby': 'user-title' } },
    h('p', { class: 'crumbs' }, h('a', { attrs: { href: href({ page: 'users', appId: route.appId, pageNo: 0 }) } }, '\u2190 Users')),
    h('h1', { class: 'user-id', attrs: { id: 'user-title' } }, route.userId),
    h(
      'p',
      { class: 'muted' },
      `${plural(result.total, 'memory', 'memories')}${scope}, newest first. `,
      h('a', { attrs: { href: href({ page: 'recall', userId: route.userId, appId: route.appId }) } }, 'Ask recall about this user'),
    ),
    h('div', { class: 'toolbars' }, filter),
    result.memories.length > 0
      ? h('div', { class: 'bulk' }, h('label', { class: 'check' }, selectAll, 'All on this page'), deleteSelected, deleteAll)
      : null,
    list,
    result.total > 0 ? pager({ page: route.pageNo, pageSize: PAGE_SIZE, total: result.total, noun: ['memory', 'memories'], hrefOf: (pageNo) => href({ ...route, pageNo }) }) : null,
  );
  updateSelection();
  return view;
}
