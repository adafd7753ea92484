/**
 * Any Hugging Face sentence-embedding model through transformers.js (ONNX Runtime), e.g. `Xenova/all-MiniLM-L6-v2`
 * or `Xenova/bge-small-en-v1.5`. Runs inside the embedding worker. With `modelDir` the model is read only from
 * that directory (hub layout); without it the hub is used, and an unreachable hub fails with a clear message.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { importOptional } from './optional-import.js';
import type { LoadedModel } from './protocol.js';
import { errorMessage } from './protocol.js';
import type { EmbedKind } from '../core/embedder.js';
import { normalizeInPlace } from '../core/vector.js';

export interface TransformersModelOptions {
  /** Hub id, `<org>/<name>`. */
  model: string;
  /** Directory holding `<org>/<name>/…`; when set, nothing is fetched from the network. */
  modelDir?: string | undefined;
  /** ONNX Runtime's intra-op threads (it would otherwise take every core in every worker); default 1. */
  threads?: number | undefined;
}

/** The files the loader reads, relative to `<modelDir>/<org>/<name>/` (dtype q8 selects `model_quantized.onnx`). */
export const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'] as const;

/** The instruction the BGE English models were trained with on the query side; passages get no prefix. */
export const BGE_QUERY_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

/**
 * How long a hub request may take to start answering. Only the wait for response headers is bounded, so a slow
 * but progressing download of a large model is never cut off, while a host that drops packets fails instead of hanging.
 */
export const HUB_RESPONSE_TIMEOUT_MS = 30_000;

/**
 * The query prefix for a model. Only the English BGE models (`bge-small-en`, `bge-base-en-v1.5`, …) use this
 * instruction; the Chinese ones use a different one and bge-m3 none, so they get no prefix rather than a wrong one.
 */
export function queryPrefixFor(model: string): string {
  const name = model.split('/').pop() ?? model;
  return /^bge-(small|base|large)-en\b/i.test(name) ? BGE_QUERY_INSTRUCTION : '';
}

/** Prepared input per text: the query prefix applies to queries only. */
export function prepareTexts(model: string, texts: readonly string[], kinds: readonly EmbedKind[]): string[] {
  const prefix = queryPrefixFor(model);
  if (prefix === '') return [...texts];
  return texts.map((text, i) => (kinds[i] === 'query' ? prefix + text : text));
}

/** Fails fast, listing what is missing, instead of letting the loader report one file at a time. */
async function assertLocalModel(modelDir: string, model: string): Promise<void> {
  const root = join(modelDir, model);
  const missing: string[] = [];
  for (const file of MODEL_FILES) {
    try {
      await access(join(root, file));
    } catch {
      missing.push(file);
    }
  }
  if (missing.length > 0) {
    throw new Error(
      `it was not found in modelDir "${modelDir}": missing ${missing.map((f) => join(root, f)).join(', ')}. ` +
        `Expected the Hugging Face hub layout <modelDir>/<org>/<name>/{${MODEL_FILES.join(', ')}}.`,
    );
  }
}

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Wraps fetch so that a request whose response has not started within `timeoutMs` is aborted. */
export function withResponseTimeout(inner: FetchLike, timeoutMs: number): FetchLike {
  return async (input, init) => {
    const controller = new AbortController();
    const host = URL.canParse(String(input)) ? new URL(String(input)).host : String(input);
    const timeout = new Error(`no response from ${host} within ${timeoutMs / 1000} s`);
    const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    try {
      return await inner(input, { ...init, signal });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Error text with its causes (fetch hides the useful part, e.g. ENOTFOUND, in `cause`). */
function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const message = errorMessage(current);
    if (!parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}

/**
 * The part of transformers.js used here. Declared, not imported: the package (with ONNX Runtime, about 450 MB) is an
 * optional peer that a checkout installs only for the lanes that use it (tools/lanes), and type-checking must not
 * need it.
 */
interface FeatureTensor {
  dims: number[];
  data: unknown;
  type: string;
  dispose(): void;
}
type FeatureExtractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<FeatureTensor>;
interface TransformersModule {
  env: {
    logLevel: unknown;
    allowRemoteModels: boolean;
    allowLocalModels: boolean;
    localModelPath: string;
    fetch: FetchLike;
  };
  LogLevel: { ERROR: unknown };
  pipeline(
    task: 'feature-extraction',
    model: string,
    options: { dtype: 'q8'; device: 'cpu'; session_options: { intraOpNumThreads: number; interOpNumThreads: number } },
  ): Promise<FeatureExtractor>;
}
/** A variable, so that the compiler does not resolve (and require) the package. */
const TRANSFORMERS_PACKAGE: string = '@huggingface/transformers';

export async function loadTransformersModel(options: TransformersModelOptions): Promise<LoadedModel> {
  const { model, modelDir } = options;
  const threads = Math.max(1, Math.floor(options.threads ?? 1));
  if (modelDir !== undefined) await assertLocalModel(modelDir, model);

  // An optional peer dependency (it brings about 450 MB of ONNX runtimes): imported only when such a model is chosen.
  const transformers = await importOptional(
    TRANSFORMERS_PACKAGE,
    `The Hugging Face model "${model}"`,
    () => import(TRANSFORMERS_PACKAGE) as Promise<TransformersModule>,
  );
  const { env } = transformers;
  // Its warnings go to the console; keep only errors (the worker's console is routed to stderr anyway).
  env.logLevel = transformers.LogLevel.ERROR;
  if (modelDir !== undefined) {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = modelDir;
  } else {
    env.allowRemoteModels = true;
    const inner = env.fetch.bind(env) as FetchLike;
    env.fetch = withResponseTimeout(inner, HUB_RESPONSE_TIMEOUT_MS);
  }

  let extractor: FeatureExtractor;
  try {
    // q8 is the int8 `model_quantized.onnx`: about 4× smaller and faster on CPU than fp32, with near-identical vectors.
    extractor = await transformers.pipeline('feature-extraction', model, {
      dtype: 'q8',
      device: 'cpu',
      // One batch runs at a time per worker, so operators need no parallelism between them (inter-op); within one
      // (intra-op) the worker gets its share of the cores, not all of them (threads.ts).
      session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
    });
  } catch (error) {
    const detail = describe(error);
    throw new Error(
      modelDir !== undefined
        ? `loading from modelDir "${modelDir}" failed (${detail})`
        : `loading from the Hugging Face hub failed (${detail}). Without internet access, download the model ` +
            `elsewhere and set modelDir to a directory holding ${model}/{${MODEL_FILES.join(', ')}}`,
    );
  }

  return {
    threads,
    async embed(texts: readonly string[], kinds: readonly EmbedKind[]): Promise<Float32Array[]> {
      const output = await extractor(prepareTexts(model, texts, kinds), { pooling: 'mean', normalize: true });
      try {
        const [rows, dimension] = output.dims;
        if (rows !== texts.length || dimension === undefined || output.dims.length !== 2) {
          throw new Error(`Unexpected output shape [${output.dims.join(', ')}] for ${texts.length} texts`);
        }
        const data = output.data;
        if (!(data instanceof Float32Array)) throw new Error(`Unexpected output type ${output.type}`);
        // slice copies, so each vector owns its buffer and the tensor can be released.
        return Array.from({ length: rows }, (_, i) => normalizeInPlace(data.slice(i * dimension, (i + 1) * dimension)));
      } finally {
        output.dispose();
      }
    },
  };
}
