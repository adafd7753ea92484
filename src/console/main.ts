/**
 * The console's entry: draws the page the URL's fragment names, with the key of this tab, and turns every failure
 * into a message on the page (the API's own, when it gave one), never a blank page.
 */
import { Api, ApiError } from './api.js';
import { byId, h } from './dom.js';
import { href, parseRoute, type Route } from './route.js';
import { forgetKey, keepKey, storedKey } from './session.js';
import { clearStatus, showError } from './status.js';
import type { ViewContext } from './views/context.js';
import { memoriesView } from './views/memories.js';
import { recallView } from './views/recall.js';
import { signInView } from './views/signin.js';
import { usersView } from './views/users.js';

const main = byId('main');
const nav = byId('nav');
const signOut = byId<HTMLButtonElement>('sign-out');

/** Each draw gets a number; a slow answer for a page the person already left is dropped. */
let drawing = 0;
/** A message about an action (e.g. "Deleted 3 memories.") survives the page change that follows it. */
let keepStatusOnce = false;

function show(view: HTMLElement): void {
  main.replaceChildren(view);
  main.removeAttribute('aria-busy');
  const title = view.querySelector('h1')?.textContent;
  document.title = title ? `${title} \u00b7 agent-memory` : 'agent-memory console';
}

function markCurrent(route: Route | undefined): void {
  for (const link of nav.querySelectorAll<HTMLAnchorElement>('a[data-page]')) {
    const current = route !== undefined && (link.dataset.page === route.page || (link.dataset.page === 'users' && route.page === 'user'));
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function signIn(reason?: string): void {
  drawing++;
  nav.hidden = true;
  signOut.hidden = true;
  markCurrent(undefined);
  show(
    signInView((key) => {
      keepKey(key);
      clearStatus();
      void draw();
    }, reason),
  );
}

async function draw(): Promise<void> {
  const key = storedKey();
  if (key === null) return signIn();
  const ticket = ++drawing;
  const route = parseRoute(location.hash);
  nav.hidden = false;
  signOut.hidden = false;
  markCurrent(route);
  main.setAttribute('aria-busy', 'true');
  const ctx: ViewContext = {
    api: new Api(key),
    go(next, options = {}) {
      const target = href(next);
      if (target === location.hash) return void draw();
      keepStatusOnce = options.keepStatus === true;
      location.hash = target;
    },
    refresh() {
      void draw();
    },
  };
  try {
    const view =
      route.page === 'user' ? await memoriesView(ctx, route) : route.page === 'recall' ? recallView(ctx, route) : await usersView(ctx, route);
    if (ticket === drawing) show(view);
  } catch (error) {
    if (ticket !== drawing) return;
    if (error instanceof ApiError && error.code === 'auth_error') {
      // A revoked or deleted key: back to the form, with the server's reason.
      forgetKey();
      signIn(`The server no longer accepts this key: ${error.message}`);
      return;
    }
    showError(error);
    show(
      h(
        'section',
        { class: 'failed' },
        h('h1', {}, 'This page could not be loaded'),
        h('p', {}, 'The message above is what the server said. ', h('a', { attrs: { href: '#/users' } }, 'Back to the users'), '.'),
      ),
    );
  }
}

signOut.addEventListener('click', () => {
  forgetKey();
  clearStatus();
  signIn();
});
window.addEventListener('hashchange', () => {
  if (!keepStatusOnce) clearStatus();
  keepStatusOnce = false;
  void draw();
});
// Failures no page caught still reach the person, as a message rather than silence.
window.addEventListener('error', (event) => showError(event.error ?? event.message));
window.addEventListener('unhandledrejection', (event) => showError(event.reason));

void draw();
