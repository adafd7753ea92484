import { h } from '../dom.js';
import { href, type Route } from '../route.js';
import { appInput, dateText, field, pager } from '../widgets.js';
import type { ViewContext } from './context.js';

const PAGE_SIZE = 20;
/** The memory count at a glance adds up every user's count, read 100 users a call, at most this many calls. */
const COUNT_PAGES = 10;

/** Memories of every user (in the app, when one is named), and whether that is all of them or a lower bound. */
async function countMemories(ctx: ViewContext, appId: string | undefined): Promise<{ memories: number; complete: boolean }> {
  let memories = 0;
  for (let page = 0; page < COUNT_PAGES; page++) {
    const result = await ctx.api.listUsers({ appId, page, pageSize: 100 });
    for (const user of result.users) memories += user.memoryCount;
    if ((page + 1) * 100 >= result.total) return { memories, complete: true };
  }
  return { memories, complete: false };
}

/** Users with memories in the apps the key can see: how many, and when the newest was stored. */
export async function usersView(ctx: ViewContext, route: Extract<Route, { page: 'users' }>): Promise<HTMLElement> {
  const [result, counted] = await Promise.all([
    ctx.api.listUsers({ appId: route.appId || undefined, page: route.pageNo, pageSize: PAGE_SIZE }),
    countMemories(ctx, route.appId || undefined),
  ]);
  const newest = route.pageNo === 0 ? result.users[0]?.newestMemoryAt : undefined;
  const stat = (value: string | HTMLElement, label: string) => h('li', {}, h('span', { class: 'stat-value' }, value), h('span', { class: 'stat-label' }, label));
  const stats = h(
    'ul',
    { class: 'stats', attrs: { 'aria-label': 'At a glance' } },
    stat(result.total.toLocaleString(), result.total === 1 ? 'user' : 'users'),
    stat(`${counted.memories.toLocaleString()}${counted.complete ? '' : '+'}`, counted.complete ? 'memories' : `memories (first ${COUNT_PAGES * 100} users)`),
    stat(newest ? dateText(newest) : '\u2013', 'newest memory'),
  );

  const app = appInput(route.appId);
  const filter = h('form', { class: 'toolbar', attrs: { role: 'search' } }, field('App', app), h('button', { class: 'quiet', attrs: { type: 'submit' } }, 'Filter'));
  filter.addEventListener('submit', (event) => {
    event.preventDefault();
    ctx.go({ page: 'users', appId: app.value.trim(), pageNo: 0 });
  });

  const userId = h('input', { attrs: { name: 'user', type: 'text', placeholder: 'a user id', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off' }, flags: { required: true } });
  const open = h('form', { class: 'toolbar' }, field('Open a user', userId), h('button', { class: 'quiet', attrs: { type: 'submit' } }, 'Open'));
  open.addEventListener('submit', (event) => {
    event.preventDefault();
    if (userId.value !== '') ctx.go({ page: 'user', userId: userId.value, appId: app.value.trim(), pageNo: 0 });
  });

  const body =
    result.users.length === 0
      ? h(
          'p',
          { class: 'empty' },
          result.total === 0
            ? route.appId
              ? `No memories in the app "${route.appId}".`
              : 'No memories yet. Agents store them with the store_memory tool, backends with POST /v1/memories.'
            : 'This page is past the end.',
        )
      : h(
          'table',
          { class: 'users' },
          h('thead', {}, h('tr', {}, h('th', { attrs: { scope: 'col' } }, 'User'), h('th', { class: 'num', attrs: { scope: 'col' } }, 'Memories'), h('th', { attrs: { scope: 'col' } }, 'Newest memory'))),
          h(
            'tbody',
            {},
            ...result.users.map((user) =>
              h(
                'tr',
                {},
                h('td', { class: 'user-id' }, h('a', { attrs: { href: href({ page: 'user', userId: user.userId, appId: route.appId, pageNo: 0 }) } }, user.userId)),
                h('td', { class: 'num' }, user.memoryCount.toLocaleString()),
                h('td', {}, dateText(user.newestMemoryAt)),
              ),
            ),
          ),
        );

  return h(
    'section',
    { attrs: { 'aria-labelledby': 'users-title' } },
    h('h1', { attrs: { id: 'users-title' } }, 'Users'),
    h('p', { class: 'muted' }, route.appId ? `Users with memories in the app "${route.appId}", most recently active first.` : 'Users with memories in the apps this key can see, most recently active first.'),
    stats,
    h('div', { class: 'toolbars' }, filter, open),
    body,
    result.total > 0 ? pager({ page: route.pageNo, pageSize: PAGE_SIZE, total: result.total, noun: ['user', 'users'], hrefOf: (pageNo) => href({ ...route, pageNo }) }) : null,
  );
}
