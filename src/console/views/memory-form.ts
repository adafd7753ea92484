/**
 * The form that adds a memory to a user and the one that edits a memory in place: a text and its metadata as JSON.
 * Both only collect and check what a person typed; the API does the rest (its validation errors are shown as they
 * come, e.g. a text the user already has is 409 duplicate_memory on an edit).
 */
import type { ListItem } from '../api.js';
import { h } from '../dom.js';
import { showError } from '../status.js';
import { appInput, field } from '../widgets.js';

/** What the person typed, checked as far as the console can: a non-empty text and a metadata object. */
export interface MemoryDraft {
  text: string;
  metadata: Record<string, unknown> | undefined;
  appId: string | undefined;
}

/** Metadata as the person typed it: empty means none, anything else must be a JSON object. */
export function parseMetadata(raw: string): Record<string, unknown> | undefined {
  if (raw.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error('Metadata must be JSON, e.g. {"topic": "travel"}, or left empty.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('Metadata must be a JSON object, e.g. {"topic": "travel"}.');
  return value as Record<string, unknown>;
}

function textArea(name: string, value: string, options: { json?: boolean; required?: boolean } = {}): HTMLTextAreaElement {
  const area = h('textarea', {
    class: options.json ? 'json' : undefined,
    attrs: { name, rows: options.json ? '2' : '3', spellcheck: options.json ? 'false' : 'true', ...(options.json ? { placeholder: '{"topic": "travel"}' } : {}) },
    flags: { required: options.required === true },
  });
  area.value = value;
  return area;
}

/**
 * A form for a memory: text, metadata and (when adding) the app. `onSubmit` gets the draft and may throw (the error
 * is the caller's to show); the submit button is disabled while it runs, so a double click stores once.
 */
export function memoryForm(options: {
  label: string;
  submit: string;
  memory?: ListItem;
  appId?: string;
  onSubmit: (draft: MemoryDraft) => Promise<void>;
  onCancel?: () => void;
}): HTMLFormElement {
  const text = textArea('text', options.memory?.text ?? '', { required: true });
  const metadata = textArea(
    'metadata',
    options.memory && Object.keys(options.memory.metadata).length > 0 ? JSON.stringify(options.memory.metadata, null, 2) : '',
    { json: true },
  );
  const app = options.memory ? undefined : appInput(options.appId ?? '');
  if (app) app.placeholder = 'default';
  const save = h('button', { attrs: { type: 'submit' } }, options.submit);
  const form = h(
    'form',
    { class: 'memory-form', attrs: { 'aria-label': options.label } },
    field('Text', text),
    field('Metadata (JSON, optional)', metadata),
    app ? field('App', app, 'An app slug; empty: the key\u2019s app or "default".') : null,
    h(
      'div',
      { class: 'actions' },
      save,
      options.onCancel ? h('button', { class: 'quiet', attrs: { type: 'button' }, on: { click: options.onCancel } }, 'Cancel') : null,
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    save.disabled = true;
    const run = async () => {
      await options.onSubmit({ text: text.value, metadata: parseMetadata(metadata.value), appId: app?.value.trim() || undefined });
    };
    // A draft the console refuses (metadata that is not an object) is shown like the API's refusals.
    run()
      .catch(showError)
      .finally(() => {
        save.disabled = false;
      });
  });
  return form;
}
