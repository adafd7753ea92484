import { Api, ApiError } from '../api.js';
import { h } from '../dom.js';
import { showError } from '../status.js';
import { field } from '../widgets.js';

/**
 * The key form. The input has no `name`, so even if the script were gone and the form submitted itself, the key
 * would not be sent anywhere; it is checked with one cheap call before it is kept.
 */
export function signInView(onSignedIn: (key: string) => void, reason?: string): HTMLElement {
  const key = h('input', {
    attrs: { type: 'password', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', placeholder: 'amk_\u2026', 'aria-describedby': 'key-help' },
    flags: { required: true, autofocus: true },
  });
  const submit = h('button', { attrs: { type: 'submit' } }, 'Sign in');
  const form = h(
    'form',
    { class: 'card signin', attrs: { method: 'post', action: '#' } },
    h('h1', {}, 'Sign in'),
    reason ? h('p', { class: 'notice' }, reason) : null,
    field('API key', key),
    h(
      'p',
      { class: 'hint', attrs: { id: 'key-help' } },
      'Paste the key that ',
      h('code', {}, 'agent-memory serve'),
      ' printed when it first started, or make one with ',
      h('code', {}, 'agent-memory keys create'),
      '. It stays in this browser tab only and is sent only to this server. A key bound to an app shows that app only.',
    ),
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = key.value.trim();
    if (value === '') return;
    submit.disabled = true;
    new Api(value)
      .listUsers({ pageSize: 1 })
      .then(
        () => onSignedIn(value),
        (error: unknown) => {
          showError(error instanceof ApiError && error.code === 'auth_error' ? new ApiError(error.status, error.code, `This key was refused: ${error.message}`) : error);
          key.select();
        },
      )
      .finally(() => {
        submit.disabled = false;
      });
  });
  return form;
}
