/**
 * An embedding model behind an OpenAI-compatible API (Ollama, vLLM, Hugging Face TEI, LM Studio, llama.cpp's server,
 * LiteLLM, OpenAI): `POST {url}/embeddings` with `{ model, input: string[] }`. The dimension is probed by `ready()`;
 * texts are sent in batches bounded by count and characters, a bounded number at a time; each request times out and
 * is retried on 429, 5xx, timeouts and refused connections, with backoff that honours `Retry-After`. Answers are
 * checked (one finite vector of the probed dimension per text) before any vector leaves here, so a malformed answer
 * fails its call instead of storing a bad vector. The API key is sent as a Bearer token and appears in no message.
 */
import type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';
import { normalizeInPlace } from '../core/vector.js';
import { prefixesFor, type Prefixes } from './endpoint-prefixes.js';

export interface EndpointEmbedderOptions {
  /** Base of the API, e.g. `http://127.0.0.1:11434/v1`; `/embeddings` is appended. */
  url: string;
  /** The model's name at the endpoint; it is also the name recorded in the database and calibrated under. */
  model: string;
  /** Sent as `Authorization: Bearer …`; never logged or shown. */
  apiKey?: string | undefined;
  /** Overrides the family table (endpoint-prefixes.ts). */
  prefixes?: Partial<Prefixes> | undefined;
  /** Most texts per request (default 64). */
  maxBatchTexts?: number | undefined;
  /** Most characters per request (default 32,000): long texts are what servers refuse or time out on. */
  maxBatchChars?: number | undefined;
  /** Requests in flight at once (default 4). */
  concurrency?: number | undefined;
  /** One attempt's limit (default 30 s). */
  timeoutMs?: number | undefined;
  /** Attempts after the first on 429, 5xx, timeouts and refused connections (default 3). */
  retries?: number | undefined;
  /** First backoff (default 500 ms), doubled per attempt; a `Retry-After` replaces it. */
  backoffMs?: number | undefined;
  /** Longest wait honoured from `Retry-After` or the backoff (default 30 s). */
  maxBackoffMs?: number | undefined;
  /**
   * A server's start: an endpoint that is down at the probe (after its retries) is probed again, with backoff up to
   * `maxBackoffMs`, until it answers or the embedder closes, instead of failing the model for good (the endpoint
   * may start after the service). `onWaiting` is told of each failed round. Commands that run once leave it off.
   */
  keepProbing?: { onWaiting?: ((error: EndpointError) => void) | undefined } | undefined;
  /** Told of every failed attempt (metrics), with the HTTP status or the kind of failure. */
  onError?: ((reason: string) => void) | undefined;
}

/**
 * The endpoint refused or mangled a request. `fatal` (401, 403, other 4xx, a malformed answer) means retrying the
 * same request cannot help; the others (429, 5xx, timeouts, connection errors) are transient.
 */
export class EndpointError extends Error {
  override name = 'EndpointError';
  constructor(
    message: string,
    readonly fatal: boolean,
    readonly status?: number,
  ) {
    super(message);
  }

  /** Not fatal: the endpoint may answer later (core/embedder.ts's isTransientEmbedFailure reads this). */
  get transient(): boolean {
    return !this.fatal;
  }

  /** 401 or 403: the key is missing or wrong. At start this stops the process (a restart cannot fix it). */
  get unauthorized(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

const DEFAULTS = {
  maxBatchTexts: 64,
  maxBatchChars: 32_000,
  concurrency: 4,
  timeoutMs: 30_000,
  retries: 3,
  backoffMs: 500,
  maxBackoffMs: 30_000,
} as const;

/** The URL without credentials, query or trailing slash: what messages show. */
export function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/+$/, '');
  } catch {
    return '(an invalid URL)';
  }
}

/** `Retry-After` as milliseconds: seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Splits texts into runs bounded by count and characters (a single longer text still goes alone). */
export function batches(texts: readonly string[], maxTexts: number, maxChars: number): { start: number; texts: string[] }[] {
  const out: { start: number; texts: string[] }[] = [];
  let current: string[] = [];
  let chars = 0;
  let start = 0;
  texts.forEach((text, i) => {
    if (current.length > 0 && (current.length >= maxTexts || chars + text.length > maxChars)) {
      out.push({ start, texts: current });
      current = [];
      chars = 0;
      start = i;
    }
    current.push(text);
    chars += text.length;
  });
  if (current.length > 0) out.push({ start, texts: current });
  return out;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });

export class EndpointEmbedder implements Embedder {
  readonly model: string;
  readonly #endpoint: string;
  readonly #shown: string;
  readonly #apiKey: string | undefined;
  readonly #prefixes: Prefixes;
  readonly #options: Required<Omit<EndpointEmbedderOptions, 'apiKey' | 'prefixes' | 'onError' | 'url' | 'model' | 'keepProbing'>>;
  readonly #keepProbing: EndpointEmbedderOptions['keepProbing'];
  readonly #onError: ((reason: string) => void) | undefined;
  readonly #closing = new AbortController();
  #ready: Promise<EmbedderInfo> | undefined;
  #dimension: number | undefined;
  #inFlight = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: EndpointEmbedderOptions) {
    this.model = options.model;
    this.#shown = displayUrl(options.url);
    this.#endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`;
    this.#apiKey = options.apiKey !== undefined && options.apiKey !== '' ? options.apiKey : undefined;
    this.#prefixes = prefixesFor(options.model, options.prefixes);
    this.#onError = options.onError;
    this.#keepProbing = options.keepProbing;
    this.#options = {
      maxBatchTexts: options.maxBatchTexts ?? DEFAULTS.maxBatchTexts,
      maxBatchChars: options.maxBatchChars ?? DEFAULTS.maxBatchChars,
      concurrency: options.concurrency ?? DEFAULTS.concurrency,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      retries: options.retries ?? DEFAULTS.retries,
      backoffMs: options.backoffMs ?? DEFAULTS.backoffMs,
      maxBackoffMs: options.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
    };
  }

  /** Where the model is served (no credentials), for logs and /healthz. */
  get location(): string {
    return this.#shown;
  }

  /** Probes the dimension with one short text (retried like any call; a refusal such as 401 rejects at once). */
  ready(): Promise<EmbedderInfo> {
    this.#ready ??= this.#probe().then(
      (vectors) => {
        const dimension = vectors[0]?.length ?? 0;
        this.#dimension = dimension;
        return { model: this.model, dimension };
      },
      (error: unknown) => {
        // An endpoint that is down may come back: the next call probes again. A refusal (401, 4xx) stays.
        if (!(error instanceof EndpointError) || !error.fatal) this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    await this.ready();
    if (texts.length === 0) return [];
    const prefix = kind === 'query' ? this.#prefixes.query : this.#prefixes.document;
    const prepared = texts.map((text) => prefix + text);
    const out = new Array<Float32Array>(texts.length);
    await Promise.all(
      batches(prepared, this.#options.maxBatchTexts, this.#options.maxBatchChars).map(async (batch) => {
        const vectors = await this.#limited(() => this.#post(batch.texts));
        vectors.forEach((vector, i) => (out[batch.start + i] = vector));
      }),
    );
    return out;
  }

  async #probe(): Promise<Float32Array[]> {
    for (let round = 0; ; round++) {
      try {
        return await this.#post(['dimension probe']);
      } catch (error) {
        if (this.#keepProbing === undefined || !(error instanceof EndpointError) || error.fatal) throw error;
        this.#keepProbing.onWaiting?.(error);
        await sleep(Math.min(this.#options.maxBackoffMs, this.#options.backoffMs * 2 ** (round + this.#options.retries)), this.#closing.signal);
      }
    }
  }

  close(): Promise<void> {
    this.#closing.abort(new Error(`The embedder for model "${this.model}" is closed`));
    return Promise.resolve();
  }

  /** Runs `task` when fewer than `concurrency` requests are in flight. */
  async #limited<T>(task: () => Promise<T>): Promise<T> {
    while (this.#inFlight >= this.#options.concurrency) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#inFlight++;
    try {
      return await task();
    } finally {
      this.#inFlight--;
      this.#waiting.shift()?.();
    }
  }

  /** One batch, with retries on transient failures. */
  async #post(input: string[]): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      if (this.#closing.signal.aborted) throw this.#closing.signal.reason as Error;
      const result = await this.#attempt(input);
      if (!(result instanceof EndpointError)) return result.vectors;
      this.#onError?.(result.status !== undefined ? String(result.status) : result.fatal ? 'malformed' : 'network');
      if (result.fatal || attempt >= this.#options.retries) throw result;
      const backoff = Math.min(this.#options.maxBackoffMs, result.retryAfter ?? this.#options.backoffMs * 2 ** attempt);
      await sleep(backoff, this.#closing.signal);
    }
  }

  async #attempt(input: string[]): Promise<{ vectors: Float32Array[] } | (EndpointError & { retryAfter?: number })> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    const signal = AbortSignal.any([this.#closing.signal, AbortSignal.timeout(this.#options.timeoutMs)]);
    let response: Response;
    let body: string;
    try {
      response = await fetch(this.#endpoint, { method: 'POST', headers, body: JSON.stringify({ model: this.model, input }), signal });
      body = await response.text();
    } catch (error) {
      if (this.#closing.signal.aborted) throw this.#closing.signal.reason as Error;
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      const reason = timedOut ? `no answer within ${this.#options.timeoutMs / 1000} s` : this.#cause(error);
      return new EndpointError(`The embedding endpoint ${this.#shown} failed: ${reason}.`, false);
    }
    if (!response.ok) {
      const status = response.status;
      const transient = status === 429 || status >= 500;
      const hint = status === 401 || status === 403 ? ' (check MEMORY_EMBED_API_KEY)' : '';
      const error: EndpointError & { retryAfter?: number } = new EndpointError(
        `The embedding endpoint ${this.#shown} answered ${status}${hint}: ${this.#snippet(body)}`,
        !transient,
        status,
      );
      const wait = retryAfterMs(response.headers.get('retry-after'));
      if (wait !== undefined) error.retryAfter = wait;
      return error;
    }
    try {
      return { vectors: this.#parse(body, input.length) };
    } catch (error) {
      return new EndpointError(`The embedding endpoint ${this.#shown} gave a malformed answer: ${(error as Error).message}.`, true);
    }
  }

  /** One finite, non-zero vector per input, all of the probed dimension, ordered by `index` when given. */
  #parse(body: string, count: number): Float32Array[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new Error('not JSON');
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw new Error('no "data" array');
    if (data.length !== count) throw new Error(`${data.length} vectors for ${count} texts`);
    const rows = data.map((row: unknown, position) => {
      const entry = row as { embedding?: unknown; index?: unknown } | null;
      const index = typeof entry?.index === 'number' ? entry.index : position;
      return { index, embedding: entry?.embedding };
    });
    rows.sort((a, b) => a.index - b.index);
    return rows.map(({ index, embedding }, i) => {
      if (index !== i) throw new Error(`indexes are not 0..${count - 1}`);
      if (!Array.isArray(embedding) || embedding.length === 0) throw new Error(`vector ${i} is not an array of numbers`);
      const expected = this.#dimension;
      if (expected !== undefined && embedding.length !== expected) {
        throw new Error(`vector ${i} has ${embedding.length} dimensions, not ${expected}`);
      }
      const vector = Float32Array.from(embedding as unknown[], (value) => (typeof value === 'number' ? value : Number.NaN));
      if (!vector.every(Number.isFinite)) throw new Error(`vector ${i} holds a value that is not a finite number`);
      if (vector.every((value) => value === 0)) throw new Error(`vector ${i} is all zeros`);
      return normalizeInPlace(vector);
    });
  }

  #cause(error: unknown): string {
    let current: unknown = error;
    const parts: string[] = [];
    for (let depth = 0; current instanceof Error && depth < 3; depth++) {
      const code = (current as { code?: unknown }).code;
      parts.push(typeof code === 'string' ? `${current.message} (${code})` : current.message);
      current = current.cause;
    }
    return this.#redact(parts.join(': ') || String(error));
  }

  /** The start of an error body, for the log; never the key, should a server echo it. */
  #snippet(body: string): string {
    const text = body.replace(/\s+/g, ' ').trim().slice(0, 200);
    return this.#redact(text === '' ? '(empty body)' : text);
  }

  #redact(text: string): string {
    return this.#apiKey === undefined ? text : text.split(this.#apiKey).join('[key]');
  }
}
