/**
 * The messages between the host (`worker-embedder.ts`) and the worker thread (`embed-worker.ts`), and the shape every
 * model module presents to the worker. Kept in one file so that both sides agree by construction.
 */
import type { EmbedKind } from '../core/embedder.js';

/** Which model module the worker imports: only the one in use is loaded, so USE-lite never pulls in onnxruntime. */
export type ProviderName = 'use-lite' | 'transformers';

/** `workerData` of the embedding worker. */
export interface EmbedWorkerData {
  provider: ProviderName;
  model: string;
  modelDir?: string | undefined;
  /** Threads the model library may use inside this worker (threads.ts: the cores shared among the workers). */
  threads: number;
}

/** Host → worker: one micro-batch. `kinds[i]` belongs to `texts[i]`, so one batch may mix queries and documents. */
export interface EmbedRequestMessage {
  type: 'embed';
  id: number;
  texts: string[];
  kinds: EmbedKind[];
}

/** Worker → host. Vectors travel as one flat, transferred Float32Array (`texts.length × dimension`), not copied. */
export type EmbedWorkerMessage =
  | { type: 'ready'; dimension: number; threads: number }
  | { type: 'load-error'; message: string }
  | { type: 'result'; id: number; dimension: number; vectors: Float32Array }
  | { type: 'error'; id: number; message: string };

/** A loaded model as the worker drives it. Implementations may return vectors of any length scale. */
export interface LoadedModel {
  /** Threads the library reports it computes with (TensorFlow.js's own count; ONNX Runtime's intra-op setting). */
  readonly threads: number;
  embed(texts: readonly string[], kinds: readonly EmbedKind[]): Promise<Float32Array[]>;
}

/** Runtime check of `workerData`, which arrives untyped. */
export function isEmbedWorkerData(value: unknown): value is EmbedWorkerData {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Record<string, unknown>;
  return (
    (data.provider === 'use-lite' || data.provider === 'transformers') &&
    typeof data.model === 'string' &&
    Number.isInteger(data.threads) &&
    (data.threads as number) >= 1 &&
    (data.modelDir === undefined || typeof data.modelDir === 'string')
  );
}

/** Runtime check of a host message, which arrives untyped. */
export function isEmbedRequestMessage(value: unknown): value is EmbedRequestMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  return (
    message.type === 'embed' &&
    typeof message.id === 'number' &&
    Array.isArray(message.texts) &&
    Array.isArray(message.kinds) &&
    message.texts.length === message.kinds.length
  );
}

/** The message of any thrown value, for sending across the thread boundary (Error objects lose their class). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
