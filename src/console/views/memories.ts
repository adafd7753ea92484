import type { ListItem } from '../api.js';
import { h } from '../dom.js';
import { download, exportFileName, exportUser } from '../export.js';
import { href, type Route } from '../route.js';
import { showError, showInfo } from '../status.js';
import { appInput, confirmAction, dateText, field, metadataView, pager, plural } from '../widgets.js';
import type { ViewContext } from './context.js';
import { memoryForm } from './memory-form.js';

const PAGE_SIZE = 20;
/** Matches a search shows: recall's most. */
const SEARCH_LIMIT = 50;

type UserRoute = Extract<Route, { page: 'user' }>;
type Shown = ListItem & { score?: number };

/** "Edit": the card's text and metadata become a form in place; saved with PATCH /v1/memories/{id}. */
function editControl(memory: ListItem, ctx: ViewContext, card: () => HTMLElement): HTMLElement {
  const edit = h('button', { class: 'quiet', attrs: { type: 'button', 'data-action': 'edit' } }, 'Edit');
  edit.addEventListener('click', () => {
    const item = card();
    const body = item.querySelector('.body');
    if (!body) return;
    const before = [...body.childNodes];
    const restore = () => body.replaceChildren(...before);
    body.replaceChildren(
      memoryForm({
        label: 'Edit this memory',
        submit: 'Save',
        memory,
        onCancel: restore,
        async onSubmit(draft) {
          try {
            const change: { text?: string; metadata?: Record<string, unknown> } = {};
            if (draft.text !== memory.text) change.text = draft.text;
            const metadata = draft.metadata ?? {};
            if (JSON.stringify(metadata) !== JSON.stringify(memory.metadata)) change.metadata = metadata;
            if (Object.keys(change).length === 0) return restore();
            await ctx.api.update(memory.id, change);
            showInfo('Saved.');
            ctx.refresh();
          } catch (error) {
            showError(error);
          }
        },
      }),
    );
    body.querySelector('textarea')?.focus();
  });
  return edit;
}

/**
 * One user's memories, newest first, a page at a time, with app, metadata and dates: counts at a glance, a search
 * (recall, ranked), add, edit, export as JSONL, and delete one, some or all.
 */
export async function memoriesView(ctx: ViewContext, route: UserRoute): Promise<HTMLElement> {
  const appId = route.appId || undefined;
  const searching = route.q !== undefined && route.q.trim() !== '';
  const [result, found] = await Promise.all([
    ctx.api.listMemories({ userId: route.userId, appId, page: searching ? 0 : route.pageNo, pageSize: PAGE_SIZE }),
    searching ? ctx.api.recall({ userId: route.userId, appId, query: route.q ?? '', limit: SEARCH_LIMIT }) : undefined,
  ]);
  const shown: Shown[] = found ? found.memories : result.memories;
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

  const card = (memory: Shown): HTMLElement => {
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
    const item: HTMLElement = h(
      'li',
      { class: 'memory card', attrs: { 'data-id': memory.id } },
      h('div', { class: 'select' }, box),
      h(
        'div',
        { class: 'body' },
        h('p', { class: 'text' }, memory.text),
        h(
          'p',
          { class: 'meta' },
          h('span', { class: 'chip', attrs: { title: 'App' } }, memory.appId),
          dateText(memory.createdAt),
          memory.updatedAt !== memory.createdAt ? h('span', { class: 'muted' }, 'edited ', dateText(memory.updatedAt)) : null,
          memory.score === undefined ? null : h('span', { class: 'score chip', attrs: { title: 'Recall score' } }, `score ${memory.score.toFixed(2)}`),
          h('code', { class: 'id' }, memory.id),
        ),
        metadataView(memory.metadata),
      ),
      h('div', { class: 'row-actions' }, editControl(memory, ctx, () => item), remove),
    );
    return item;
  };

  const app = appInput(route.appId);
  const filter = h('form', { class: 'toolbar', attrs: { role: 'search' } }, field('App', app), h('button', { class: 'quiet', attrs: { type: 'submit' } }, 'Filter'));
  filter.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.go({ ...route, appId: app.value.trim(), pageNo: 0 });
  });

  // Search: recall over this user's memories (ranked by meaning and words), shown as the same cards.
  const query = h('input', {
    attrs: { name: 'q', type: 'search', value: route.q ?? '', placeholder: 'e.g. where does she live', autocomplete: 'off' },
  });
  const search = h(
    'form',
    { class: 'toolbar', attrs: { role: 'search', 'aria-label': 'Search this user’s memories' } },
    field('Search these memories', query),
    h('button', { class: 'quiet', attrs: { type: 'submit' } }, 'Search'),
  );
  search.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = query.value.trim();
    ctx.go({ page: 'user', userId: route.userId, appId: route.appId, pageNo: 0, ...(q ? { q } : {}) });
  });

  // Add: a new memory for this user (POST /v1/memories); a text the user already has is said so, not stored twice.
  const compose = h(
    'details',
    { class: 'compose' },
    h('summary', {}, 'Add a memory'),
    memoryForm({
      label: 'Add a memory',
      submit: 'Add memory',
      appId: route.appId,
      async onSubmit(draft) {
        try {
          const stored = await ctx.api.store({ userId: route.userId, text: draft.text, appId: draft.appId, metadata: draft.metadata });
          showInfo(stored.duplicate ? `${route.userId} already has this memory (${stored.id}): nothing was added.` : 'Added.');
          ctx.go({ page: 'user', userId: route.userId, appId: route.appId, pageNo: 0 }, { keepStatus: true });
        } catch (error) {
          showError(error);
        }
      },
    }),
  );

  // Export: every memory of the user (in this app, if filtered) as the CLI's JSONL, downloaded.
  const exportButton = h('button', { class: 'quiet', attrs: { type: 'button', 'data-action': 'export' }, flags: { disabled: result.total === 0 } }, 'Export JSONL');
  exportButton.addEventListener(
    'click',
    run(async () => {
      exportButton.disabled = true;
      try {
        const { jsonl, count } = await exportUser(ctx.api, route.userId, appId);
        download(exportFileName(route.userId, appId), jsonl);
        showInfo(`Exported ${plural(count, 'memory', 'memories')} as JSON lines (agent-memory import reads them back).`);
      } finally {
        exportButton.disabled = false;
      }
    }),
  );

  const newest = result.memories[0]?.createdAt;
  const apps = new Set(result.memories.map((m) => m.appId));
  const stat = (value: string | HTMLElement, label: string) => h('li', {}, h('span', { class: 'stat-value' }, value), h('span', { class: 'stat-label' }, label));
  const stats = h(
    'ul',
    { class: 'stats', attrs: { 'aria-label': 'At a glance' } },
    stat(result.total.toLocaleString(), result.total === 1 ? 'memory' : 'memories'),
    stat(apps.size.toLocaleString(), `${apps.size === 1 ? 'app' : 'apps'}${result.total > result.memories.length ? ' (newest 20)' : ''}`),
    stat(newest ? dateText(newest) : '–', 'newest memory'),
  );

  const list =
    shown.length === 0
      ? h(
          'p',
          { class: 'empty' },
          searching ? `Nothing of ${route.userId}’s matches “${route.q ?? ''}”.` : result.total === 0 ? `${route.userId} has no memories${scope}.` : 'This page is past the end.',
        )
      : h('ul', { class: 'memories' }, ...shown.map(card));
  const searchNote = searching
    ? h(
        'p',
        { class: 'search-note' },
        h('strong', {}, `${plural(shown.length, 'match', 'matches')} for “${route.q ?? ''}”, best first`),
        h('a', { attrs: { href: href({ page: 'user', userId: route.userId, appId: route.appId, pageNo: 0 }) } }, 'Clear the search'),
      )
    : null;

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
    stats,
    h('div', { class: 'toolbars' }, search, filter),
    compose,
    searchNote,
    shown.length > 0
      ? h('div', { class: 'bulk' }, h('label', { class: 'check' }, selectAll, searching ? 'All matches' : 'All on this page'), deleteSelected, deleteAll, exportButton)
      : result.total > 0
        ? h('div', { class: 'bulk' }, exportButton)
        : null,
    list,
    result.total > 0 && !searching ? pager({ page: route.pageNo, pageSize: PAGE_SIZE, total: result.total, noun: ['memory', 'memories'], hrefOf: (pageNo) => href({ ...route, pageNo }) }) : null,
  );
  updateSelection();
  return view;
}
