import { createHash } from 'node:crypto';
import { z } from 'zod';
import { findOrCreateApp } from './apps.js';
import { canonicalJson } from './canonical-json.js';
import { MemoryError } from './errors.js';
import { newMemoryId } from './ids.js';
import type { JsonlLine } from './jsonl-lines.js';
import { printable } from './printable.js';
import { DEFAULT_APP_SLUG, LIMITS } from './limits.js';
import { isoTimestamp, oneExpiry, storeFields } from './schemas.js';
import type { MemoryStore, NewMemory } from './store.js';
import type { App, MemoryRecord } from './types.js';
import { parseInput } from './validation.js';

/**
 * Bulk import (`agent-memory import FILE.jsonl`), one memory per line
 * (`{"userId", "text", "appId"?, "metadata"?, "createdAt"?, "id"?}`, validated with the API's own schemas).
 *
 * - Streaming: the file is read line by line, never whole; memory use does not grow with the file (except one
 *   small key per line without an `id`, see below).
 * - Batched: one embedding call per batch (`--batch`, default 64) and one transaction per batch, so a batch is
 *   stored whole or not at all; nothing is ever half-written. The next batch is read and checked while the model
 *   embeds the current one.
 * - Resumable without duplicates: every line gets a deterministic memory UUID, from its `id` (an external id, also
 *   kept as `metadata.externalId`) or else from its content and how many identical lines came before it. Lines
 *   already stored are skipped before embedding, so re-running an interrupted import (or the same file twice)
 *   stores each line once and only embeds what is missing.
 * - Bad lines are reported with their line number and skipped; `--strict` checks the whole file first and imports
 *   nothing if any line is bad. A line longer than 1 MiB (a request body's limit) or not UTF-8 is a bad line.
 * - An `id` already stored (or used earlier in the file) with another text or metadata is a collision: reported
 *   with its line number, not imported, and the exit code is 1 (it used to count silently as "already there").
 * - FILE may be `-` for stdin; a UTF-8 byte order mark is accepted.
 */

export const DEFAULT_IMPORT_BATCH = 64;
/** The longest line read: a request body's limit, so that anything the API accepts imports too. */
export const MAX_LINE_BYTES = LIMITS.bodyMaxBytes;
export const MAX_IMPORT_BATCH = 1024;

export const importLineSchema = z.strictObject({
  ...storeFields,
  // History as it was: an expiry that passed since the export is kept (the memory is then invisible and purged),
  // not refused as a store would refuse it.
  expiresAt: isoTimestamp('expiresAt').optional().describe('When the memory expires (ISO 8601).'),
  updatedAt: isoTimestamp('updatedAt').optional().describe('When the memory last changed (ISO 8601); createdAt by default.'),
  id: z
    .string({ error: 'id must be a string.' })
    .min(1, 'id must not be empty.')
    .max(LIMITS.userIdMaxLength, `id must be at most ${LIMITS.userIdMaxLength} characters.`)
    .optional()
    .describe('An external id for the memory, kept as metadata.externalId; importing it again is a no-op.'),
}).superRefine(oneExpiry);
export type ImportLine = z.output<typeof importLineSchema>;

export interface ImportTarget {
  store: MemoryStore;
  /** Unit-length vectors for the texts, in order: one call per batch. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface ImportProgress {
  /** Bytes of the input up to the last line whose batch is stored (not merely read). */
  bytes: number;
  totalBytes: number | undefined;
  lines: number;
  imported: number;
  present: number;
  invalid: number;
  collisions: number;
}

/** A JSONL input: its lines (as readJsonlLines splits them), read afresh on each call: `strict` reads them twice. */
export interface JsonlInput {
  lines(): AsyncIterable<JsonlLine>;
  /** False for a stream (stdin) that can be read once only, which `strict` refuses. */
  rereadable: boolean;
  /** The input's size, when known (a file, not a pipe), for progress. */
  totalBytes: number | undefined;
}

export interface ImportOptions {
  batchSize?: number;
  strict?: boolean;
  /** A bad line, or a collision (an id stored with another text), with what is wrong. */
  onInvalid?: (line: number, message: string) => void;
  onProgress?: (progress: ImportProgress) => void;
  now?: () => Date;
  /**
   * Reads one input line into the memories it holds (another tool's export: one line may hold several, or none);
   * throws a MemoryError saying what is wrong. Default: the project's own format, one memory per line.
   */
  parseLine?: (raw: string) => ImportLine[];
}

export interface ImportResult {
  /** Non-empty lines read. */
  lines: number;
  /** Memories stored (a line of another tool's export may hold several). */
  imported: number;
  /** Lines already stored by an earlier run (or repeated ids), skipped. */
  present: number;
  invalid: number;
  /** Lines whose `id` is stored (or earlier in the file) with another text or metadata: not imported. */
  collisions: number;
  /** True when --strict refused the file (nothing imported). */
  refused: boolean;
  seconds: number;
  /** Time the model was busy with this import's batches (overlapping waits counted once). */
  embedSeconds: number;
}

/** A UUID (version 8, "custom") derived from a key: the same line always maps to the same memory. */
export function importUuid(key: string): string {
  const h = createHash('sha256').update(key, 'utf8').digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x80;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** What is wrong with a line, printable: messages quote the input (a JSON parser's excerpt, a field name, a key). */
function describeError(error: unknown): string {
  if (error instanceof MemoryError) {
    const details = error.details ?? [];
    if (details.length === 0) return printable(error.message);
    return printable(details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; '));
  }
  return printable(error instanceof Error ? error.message : String(error));
}

/** One line's JSON object; a MemoryError (validation_error) when it is not JSON or not an object. */
export function parseJsonObject(raw: string, what = 'a line'): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new MemoryError('validation_error', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MemoryError('validation_error', `${what} must be a JSON object.`);
  }
  return value as Record<string, unknown>;
}

/** Whose memories another tool's export becomes: its files name no user or app of ours (mem0's may name a user). */
export interface ImportScope {
  userId?: string | undefined;
  appId?: string | undefined;
}

/** Parses and validates one line; throws a MemoryError (validation_error) describing what is wrong. */
export function parseImportLine(raw: string): ImportLine {
  const line = parseInput(importLineSchema, parseJsonObject(raw));
  const external = line.metadata?.externalId;
  if (line.id !== undefined && external !== undefined && external !== line.id) {
    throw new MemoryError('validation_error', 'metadata.externalId differs from id; id is stored as metadata.externalId.', {
      details: [{ path: 'id', message: 'metadata.externalId differs from id; id is stored as metadata.externalId.' }],
    });
  }
  return line;
}

interface Prepared {
  lineNo: number;
  /** Bytes of the input through this line. */
  endOffset: number;
  /** For a line with an `id`: that id, and a digest of what it stores, to tell a repeat from a collision. */
  external: { id: string; digest: string } | undefined;
  memory: Omit<NewMemory, 'embedding'>;
}

/** What an `id` line stores, as compared with what the same id holds already. */
function contentDigest(text: string, metadata: Record<string, unknown>): string {
  return createHash('sha256').update(`${text}\u0000${canonicalJson(metadata)}`).digest('base64');
}

const LINE_PROBLEMS = {
  'too-long': `the line is longer than ${MAX_LINE_BYTES} bytes.`,
  'not-utf8': 'the line is not valid UTF-8.',
  'too-deep': `it nests more than ${LIMITS.metadataMaxDepth + 1} levels of objects and arrays (metadata may nest at most ${LIMITS.metadataMaxDepth}).`,
} as const;

/** Non-blank lines with their numbers; a line that cannot be read comes with `error` instead of `raw`. */
async function* readLines(input: JsonlInput): AsyncGenerator<{ lineNo: number; raw: string; endOffset: number } | { lineNo: number; error: string; endOffset: number }> {
  for await (const line of input.lines()) {
    if (line.problem !== undefined) yield { lineNo: line.lineNo, error: LINE_PROBLEMS[line.problem], endOffset: line.endOffset };
    else if (line.raw !== undefined && line.raw.trim().length > 0) yield { lineNo: line.lineNo, raw: line.raw, endOffset: line.endOffset };
  }
}

/**
 * Imports JSONL lines into `target.store` (any backend: it uses `insertMemories`). Bad lines go to `onInvalid`
 * and are skipped, or with `strict` the input is checked first and refused whole.
 */
export async function importJsonl(target: ImportTarget, input: JsonlInput, options: ImportOptions = {}): Promise<ImportResult> {
  const { store } = target;
  const insertMany = store.insertMemories.bind(store);
  const parseLine = options.parseLine ?? ((raw: string) => [parseImportLine(raw)]);
  const batchSize = Math.min(MAX_IMPORT_BATCH, Math.max(1, Math.floor(options.batchSize ?? DEFAULT_IMPORT_BATCH)));
  const now = options.now ?? (() => new Date());
  const started = performance.now();
  const { totalBytes } = input;
  const result: ImportResult = { lines: 0, imported: 0, present: 0, invalid: 0, collisions: 0, refused: false, seconds: 0, embedSeconds: 0 };
  let bytes = 0;
  const report = () =>
    options.onProgress?.({
      bytes,
      totalBytes,
      lines: result.lines,
      imported: result.imported,
      present: result.present,
      invalid: result.invalid,
      collisions: result.collisions,
    });
  const invalid = (lineNo: number, error: unknown) => {
    result.invalid++;
    options.onInvalid?.(lineNo, describeError(error));
  };
  const collision = (lineNo: number, message: string) => {
    result.collisions++;
    options.onInvalid?.(lineNo, printable(message));
  };

  if (options.strict) {
    if (!input.rereadable) throw new MemoryError('validation_error', '--strict reads the input twice, so it needs a file, not stdin.');
    for await (const line of readLines(input)) {
      try {
        if ('error' in line) throw new MemoryError('validation_error', line.error);
        parseLine(line.raw);
      } catch (error) {
        invalid(line.lineNo, error);
      }
    }
    if (result.invalid > 0) {
      result.refused = true;
      result.seconds = (performance.now() - started) / 1000;
      return result;
    }
  }

  const apps = new Map<string, App>();
  const resolveApp = async (ref: string): Promise<App> => {
    const known = apps.get(ref);
    if (known) return known;
    const app = await findOrCreateApp(store, ref);
    apps.set(ref, app);
    return app;
  };
  // How many identical id-less lines came before: the n-th copy of a line is its own memory, and stays so on resume.
  const seen = new Map<string, number>();

  const prepare = async (lineNo: number, endOffset: number, line: ImportLine): Promise<Prepared> => {
    const app = await resolveApp(line.appId ?? DEFAULT_APP_SLUG);
    let key: string;
    if (line.key !== undefined) {
      // A caller's key names one memory of the user and app: importing it again finds the same UUID.
      key = `key\u0000${line.userId}\u0000${app.id}\u0000${line.key}`;
    } else if (line.id !== undefined) {
      key = `id\u0000${line.userId}\u0000${app.id}\u0000${line.id}`;
    } else {
      const content = createHash('sha256')
        .update(`${line.userId}\u0000${app.id}\u0000${line.text}\u0000${canonicalJson(line.metadata ?? {})}\u0000${line.createdAt ?? ''}`)
        .digest('base64')
        .slice(0, 22);
      const n = seen.get(content) ?? 0;
      seen.set(content, n + 1);
      key = `line\u0000${content}\u0000${n}`;
    }
    const metadata = line.id === undefined ? (line.metadata ?? {}) : { ...(line.metadata ?? {}), externalId: line.id };
    const createdAt = line.createdAt ?? now().toISOString();
    return {
      lineNo,
      endOffset,
      external: line.id === undefined ? undefined : { id: line.id, digest: contentDigest(line.text, metadata) },
      memory: {
        id: newMemoryId(),
        uuid: importUuid(key),
        userId: line.userId,
        appId: app.id,
        text: line.text,
        metadata,
        createdAt,
        updatedAt: line.updatedAt ?? createdAt,
        key: line.key ?? null,
        expiresAt:
          line.ttlSeconds !== undefined ? new Date(now().getTime() + line.ttlSeconds * 1000).toISOString() : (line.expiresAt ?? null),
      },
    };
  };

  // The `id` lines met so far, by memory UUID: what each stores and on which line, to tell a repeat from a collision.
  const ids = new Map<string, { digest: string; lineNo: number }>();
  /** False (and reported) when an `id` line names a memory that holds something else. */
  const sameAsStored = (item: Prepared, stored: { text: string; metadata: Record<string, unknown> } | undefined): boolean => {
    const external = item.external;
    if (external === undefined) return true;
    if (stored !== undefined && contentDigest(stored.text, stored.metadata) !== external.digest) {
      collision(item.lineNo, `id "${external.id}" is already stored with another text or metadata; this line is not imported.`);
      return false;
    }
    const earlier = ids.get(item.memory.uuid);
    if (earlier !== undefined && earlier.digest !== external.digest) {
      collision(item.lineNo, `id "${external.id}" was used by line ${earlier.lineNo} with another text or metadata; this line is not imported.`);
      return false;
    }
    if (earlier === undefined) ids.set(item.memory.uuid, { digest: external.digest, lineNo: item.lineNo });
    return true;
  };

  /**
   * False (and reported) when a line's key is held by another memory of the user and app (stored through the API,
   * say): an import adds memories, it never replaces one.
   */
  const keyFree = async (item: Prepared, stored: MemoryRecord | undefined): Promise<boolean> => {
    const { key, userId, appId } = item.memory;
    if (key == null || stored !== undefined) return true;
    const holder = await store.findKeyHolder({ userId, appId, key });
    if (holder === undefined) return true;
    collision(item.lineNo, `key "${key}" is already held by the memory ${holder.id} of this user and app; this line is not imported.`);
    return false;
  };

  let lastEmbedEnd = 0;
  /** Skips what is stored, embeds the rest (one call), and returns the memories ready to insert. */
  const embedBatch = async (batch: Prepared[]): Promise<NewMemory[]> => {
    const fresh: Prepared[] = [];
    const uuids = new Set<string>();
    for (const item of batch) {
      const stored = await store.getMemory({ kind: 'uuid', value: item.memory.uuid }, { appId: null });
      if (!sameAsStored(item, stored) || !(await keyFree(item, stored))) continue;
      // A repeated id within the file, or a line stored by an earlier run.
      if (uuids.has(item.memory.uuid) || stored) {
        result.present++;
        continue;
      }
      uuids.add(item.memory.uuid);
      fresh.push(item);
    }
    if (fresh.length === 0) return [];
    const t = performance.now();
    const vectors = await target.embed(fresh.map((f) => f.memory.text));
    const end = performance.now();
    result.embedSeconds += Math.max(0, end - Math.max(t, lastEmbedEnd)) / 1000;
    lastEmbedEnd = Math.max(lastEmbedEnd, end);
    return fresh.map((f, i) => {
      const embedding = vectors[i];
      if (!embedding) throw new MemoryError('server_error', `The embedding model returned no vector for line ${f.lineNo}.`);
      return { ...f.memory, embedding };
    });
  };

  // At most two batches in flight: the model embeds one while the next is read and checked. Inserts keep file order.
  let previous: Promise<void> = Promise.resolve();
  const inFlight: Promise<void>[] = [];
  const submit = async (batch: Prepared[]) => {
    const embedded = embedBatch(batch);
    const before = previous;
    const through = batch.at(-1)?.endOffset ?? bytes;
    const job = (async () => {
      const memories = await embedded;
      await before;
      if (memories.length > 0) {
        const { inserted } = await insertMany(memories);
        result.imported += inserted;
        result.present += memories.length - inserted;
      }
      // Progress counts what is stored, not what was read ahead of the model.
      bytes = Math.max(bytes, through);
      report();
    })();
    // Failures surface where `job` is awaited; until then they must not count as unhandled.
    embedded.catch(() => undefined);
    job.catch(() => undefined);
    previous = job;
    inFlight.push(job);
    if (inFlight.length >= 2) await inFlight.shift();
  };

  let batch: Prepared[] = [];
  try {
    for await (const line of readLines(input)) {
      result.lines++;
      try {
        if ('error' in line) throw new MemoryError('validation_error', line.error);
        const memories = parseLine(line.raw);
        // All of a line's memories are checked before any is queued: a bad line is skipped whole.
        const prepared: Prepared[] = [];
        for (const memory of memories) prepared.push(await prepare(line.lineNo, line.endOffset, memory));
        batch.push(...prepared);
      } catch (error) {
        invalid(line.lineNo, error);
        continue;
      }
      if (batch.length >= batchSize) {
        await submit(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await submit(batch);
    await Promise.all(inFlight);
  } catch (error) {
    await Promise.allSettled(inFlight);
    throw error;
  }
  bytes = totalBytes ?? bytes;
  report();
  result.seconds = (performance.now() - started) / 1000;
  return result;
}
