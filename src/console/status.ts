import { ApiError } from './api.js';
import { byId, fill, h } from './dom.js';

/** The banner under the header: an API error with its message and code, or the outcome of an action. */
export function showError(error: unknown): void {
  const status = byId('status');
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : 'console_error';
  const details = error instanceof ApiError ? error.details.filter((d) => d.message !== message) : [];
  status.className = 'status error';
  status.setAttribute('role', 'alert');
  fill(
    status,
    h('div', { class: 'status-text' }, h('strong', {}, message), ' ', h('code', {}, code)),
    details.length > 0 ? h('ul', {}, ...details.map((d) => h('li', {}, d.path ? `${d.path}: ${d.message}` : d.message))) : null,
    dismissButton(),
  );
  status.hidden = false;
}

export function showInfo(message: string): void {
  const status = byId('status');
  status.className = 'status info';
  status.setAttribute('role', 'status');
  status.replaceChildren(h('div', { class: 'status-text' }, message), dismissButton());
  status.hidden = false;
}

export function clearStatus(): void {
  const status = byId('status');
  status.hidden = true;
  status.replaceChildren();
}

function dismissButton(): HTMLButtonElement {
  return h('button', { class: 'quiet', attrs: { type: 'button', 'aria-label': 'Dismiss' }, on: { click: clearStatus } }, 'Dismiss');
}
