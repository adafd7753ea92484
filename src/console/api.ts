/**
 * The console's only way to the data: the public REST API under /v1, with the key the person pasted. The wire
 * types are the server's own (type imports only: nothing of the server's code reaches the browser).
 */
import type { ErrorBody } from '../core/errors.js';
import type { DeleteResult, ListResult, ListUsersResult, MemoryView, RecallItem, RecallResult, StoreResult } from '../core/schemas.js';

export type { DeleteResult, ListItem, ListResult, ListUsersResult, MemoryView, RecallItem, StoreResult, UserSummary } from '../core/schemas.js';

/** A recall item, with the parts of its score when the server was asked for them and knows how (`explain`). */
export type ExplainedItem = RecallItem & { explain?: unknown };

export interface RecallAnswer extends Omit<RecallResult, 'memories'> {
  memories: ExplainedItem[];
}

export interface RecallQuery {
  userId: string;
  query: string;
  appId?: string | undefined;
  limit?: number | undefined;
  minScore?: number | undefined;
}

/** A failed call, with the API's own code and message (or, with no answer at all, code `network`). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ReadonlyArray<{ path: string; message: string }>;

  constructor(status: number, code: string, message: string, details: ReadonlyArray<{ path: string; message: string }> = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

type Query = Record<string, string | number | undefined>;

function isErrorBody(value: unknown): value is ErrorBody {
  const error = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** The API sits beside the console: /console/ -> /v1/..., also behind a proxy that mounts both under a prefix. */
function apiUrl(path: string, query: Query = {}): URL {
  const url = new URL(`../${path}`, document.baseURI);
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  return url;
}

export class Api {
  readonly #key: string;
  /** Whether recall accepts `explain` (a newer server does): found out on the first recall. */
  #explain: boolean | undefined;

  constructor(key: string) {
    this.#key = key;
  }

  async #call<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#key}`, Accept: 'application/json' };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(apiUrl(path, options.query), {
        method,
        headers,
        body: options.body === undefined ? null : JSON.stringify(options.body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'network', 'The server did not answer. Is `agent-memory serve` still running?');
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (response.ok) return json as T;
    if (isErrorBody(json)) throw new ApiError(response.status, json.error.code, json.error.message, json.error.details ?? []);
    // Not the API's JSON: a proxy's page, say. Its status is all there is to tell.
    throw new ApiError(response.status, 'http_error', `The server answered ${response.status} ${response.statusText}`.trim() + '.');
  }

  listUsers(query: { appId?: string | undefined; page?: number; pageSize?: number }): Promise<ListUsersResult> {
    return this.#call('GET', 'v1/users', { query });
  }

  listMemories(query: { userId: string; appId?: string | undefined; page?: number; pageSize?: number }): Promise<ListResult> {
    // The query form: a user literally called "recall" would hit the recall route in the path form.
    return this.#call('GET', 'v1/memories', { query });
  }

  /** Recall, asking for the parts of each score; a server without `explain` is asked again without it. */
  async recall(query: RecallQuery): Promise<RecallAnswer> {
    if (this.#explain !== false) {
      try {
        const answer = await this.#call<RecallAnswer>('POST', 'v1/memories/recall', { body: { ...query, explain: true } });
        this.#explain = true;
        return answer;
      } catch (error) {
        if (!(error instanceof ApiError && error.details.some((d) => d.message === 'Unknown field: explain.'))) throw error;
        this.#explain = false;
      }
    }
    return this.#call('POST', 'v1/memories/recall', { body: query });
  }

  /** POST /v1/memories: a new memory (or, for a text the user already has, that one, `duplicate: true`). */
  store(body: { userId: string; text: string; appId?: string | undefined; metadata?: Record<string, unknown> | undefined }): Promise<StoreResult> {
    return this.#call('POST', 'v1/memories', { body });
  }

  /** PATCH /v1/memories/{id}: a new text (embedded again) and/or metadata (replaced whole). */
  update(id: string, body: { text?: string; metadata?: Record<string, unknown> }): Promise<MemoryView> {
    return this.#call('PATCH', `v1/memories/${encodeURIComponent(id)}`, { body });
  }

  forget(id: string): Promise<DeleteResult> {
    return this.#call('DELETE', `v1/memories/${encodeURIComponent(id)}`);
  }

  forgetMany(ids: readonly string[]): Promise<DeleteResult> {
    return this.#call('POST', 'v1/memories/batch-delete', { body: { ids } });
  }

  forgetAll(userId: string, appId: string | undefined): Promise<DeleteResult> {
    return this.#call('DELETE', 'v1/memories', { query: { userId, appId } });
  }
}
