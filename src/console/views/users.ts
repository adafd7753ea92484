import { h } from '../dom.js';
import { href, type Route } from '../route.js';
import { appInput, dateText, field, pager } from '../widgets.js';
import type { ViewContext } from './context.js';

const PAGE_SIZE = 20;

/** Users with memories in the apps the key can see: how many, and when the newest was stored. */
export async function usersView(ctx: ViewContext, route: Extract<Route, { page: 'users' }>): Promise<HTMLElement> {
  const result = await ctx.api.listUsers({ appId: route.appId || undefined, page: route.pageNo, pageSize: PAGE_SIZE });

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
    h('div', { class: 'toolbars' }, filter, open),
    body,
    result.total > 0 ? pager({ page: route.pageNo, pageSize: PAGE_SIZE, total: result.total, noun: ['user', 'users'], hrefOf: (pageNo) => href({ ...route, pageNo }) }) : null,
  );
}
