import type { z } from 'zod';
import {
  ConnectionError,
  MemoryApiError,
  TimeoutError,
  apiErrorFromResponse,
  type MemoryClientError,
} from './errors.js';
import type { ResolvedOptions } from './options.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs, shouldRetry, type AttemptFailure, type RetryPolicy } from './retry.js';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Starts with `/v1/`; path segments already percent-encoded by the caller. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Sent on every attempt of this request, so the server can recognise a retry. */
  idempotencyKey?: string;
}

type Attempt<T> = { ok: true; value: T } | { ok: false; error: MemoryClientError; failure: AttemptFailure };

/** A short cause for a network failure: undici hides the useful part (ECONNREFUSED...) in `cause`. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
  }
  return error.message;
}

/**
 * Sends one API call: builds the request once, then runs attempts until one succeeds or `shouldRetry` says stop.
 * Each attempt has its own timeout covering the whole answer (headers and body), since a server can stall after
 * sending headers just as well as before.
 */
export class HttpTransport {
  readonly #options: ResolvedOptions;
  readonly #policy: RetryPolicy;

  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.#policy = { ...DEFAULT_RETRY_POLICY, maxRetries: options.maxRetries };
  }

  async request<S extends z.ZodType>(request: HttpRequest, schema: S): Promise<z.output<S>> {
    const url = this.#url(request);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#options.apiKey}`,
      Accept: 'application/json',
    };
    // Serialised once: every attempt sends the same bytes, which is what the server's idempotency check compares.
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['Content-Type'] = 'application/json';
    }
    if (request.idempotencyKey !== undefined) headers['Idempotency-Key'] = request.idempotencyKey;
    const what = `${request.method} ${request.path}`;

    for (let retriesDone = 0; ; retriesDone++) {
      const attempt = await this.#attempt(url, { method: request.method, headers, body }, schema, what);
      if (attempt.ok) return attempt.value;
      if (!shouldRetry(attempt.failure, retriesDone, this.#policy)) throw attempt.error;
      await this.#options.sleep(retryDelayMs(attempt.failure, retriesDone, this.#policy));
    }
  }

  #url(request: HttpRequest): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) params.set(name, String(value));
    }
    const query = params.toString();
    return `${this.#options.baseUrl}${request.path}${query ? `?${query}` : ''}`;
  }

  async #attempt<S extends z.ZodType>(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | undefined },
    schema: S,
    what: string,
  ): Promise<Attempt<z.output<S>>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#options.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await this.#options.fetch(url, { ...init, signal: controller.signal });
      text = await response.text();
    } catch (error) {
      if (controller.signal.aborted) {
        const message = `${what} got no complete answer from ${this.#options.baseUrl} within ${this.#options.timeoutMs} ms.`;
        return { ok: false, error: new TimeoutError(message), failure: { kind: 'timeout' } };
      }
      const message = `${what} could not reach ${this.#options.baseUrl} (${describeCause(error)}).`;
      return { ok: false, error: new ConnectionError(message, { cause: error }), failure: { kind: 'connection' } };
    } finally {
      clearTimeout(timer);
    }

    if (!response.ok) {
      const error = apiErrorFromResponse(response.status, response.statusText, response.headers, text, what);
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      return { ok: false, error, failure: { kind: 'status', status: response.status, retryAfterMs } };
    }
    return this.#parseSuccess(response, text, schema, what);
  }

  /**
   * A success body is checked against the core output schema, so the returned value really has its declared type;
   * a mismatch (wrong server, or a proxy's 200 page) is an `invalid_response` error, never retried.
   */
  #parseSuccess<S extends z.ZodType>(response: Response, text: string, schema: S, what: string): Attempt<z.output<S>> {
    let json: unknown;
    let problem: string | undefined;
    try {
      json = JSON.parse(text);
    } catch {
      problem = 'is not JSON';
    }
    if (problem === undefined) {
      const parsed = schema.safeParse(json);
      if (parsed.success) return { ok: true, value: parsed.data };
      const first = parsed.error.issues[0];
      problem = `does not match the API (${first ? `${first.path.map(String).join('.') || 'body'}: ${first.message}` : 'unknown shape'})`;
    }
    const error = new MemoryApiError({
      status: response.status,
      code: 'invalid_response',
      message: `${what} answered HTTP ${response.status} with a body that ${problem}; is ${this.#options.baseUrl} an agent-memory server?`,
      headers: response.headers,
    });
    return { ok: false, error, failure: { kind: 'status', status: response.status, retryAfterMs: undefined } };
  }
}
