/**
 * Entry of the embedding worker thread: loads one model, warms it, then embeds the batches the host sends, one at a
 * time. Model work happens here so that tokenising and inference never block the server's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EmbedWorkerData, EmbedWorkerMessage, LoadedModel } from './protocol.js';
import { errorMessage, isEmbedRequestMessage, isEmbedWorkerData } from './protocol.js';

// Libraries print with console.log (TensorFlow.js, transformers.js): in a worker that is its own stdout stream,
// and the process's stdout may be an MCP stdio channel, so everything written to stdout goes to stderr instead.
// Done before any model library is imported (they are imported dynamically below).
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const port = parentPort;
if (port === null) throw new Error('embed-worker must run in a worker thread');

function post(message: EmbedWorkerMessage, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

async function loadModel(data: EmbedWorkerData): Promise<LoadedModel> {
  // Only the provider in use is imported: USE-lite pulls in TensorFlow.js, transformers.js pulls in ONNX Runtime.
  if (data.provider === 'use-lite') {
    const { loadUseLite } = await import('./use-lite.js');
    return loadUseLite({ threads: data.threads });
  }
  const { loadTransformersModel } = await import('./transformers.js');
  return loadTransformersModel({ model: data.model, modelDir: data.modelDir, threads: data.threads });
}

/** Packs vectors into one buffer that is transferred, not copied, to the host; checks they share one dimension. */
function pack(vectors: Float32Array[], dimension: number): Float32Array {
  const flat = new Float32Array(vectors.length * dimension);
  vectors.forEach((vector, i) => {
    if (vector.length !== dimension) {
      throw new Error(`Model returned a ${vector.length}-dimensional vector, expected ${dimension}`);
    }
    flat.set(vector, i * dimension);
  });
  return flat;
}

async function main(): Promise<void> {
  if (!isEmbedWorkerData(workerData)) {
    post({ type: 'load-error', message: 'Invalid embedding worker options' });
    return;
  }
  let model: LoadedModel;
  let dimension: number;
  try {
    model = await loadModel(workerData);
    // Warm-up: the first inference allocates buffers and compiles kernels; paying for it here keeps it off the
    // first real request, and the output tells the dimension without trusting the config.
    const [probe] = await model.embed(['Warm-up sentence for the embedding model.'], ['document']);
    if (probe === undefined || probe.length === 0) throw new Error('The model returned no vector for the warm-up text');
    dimension = probe.length;
  } catch (error) {
    post({ type: 'load-error', message: errorMessage(error) });
    return;
  }

  // The host sends one batch at a time; the chain keeps the worker correct even if it did not.
  let chain: Promise<void> = Promise.resolve();
  port?.on('message', (message: unknown) => {
    if (!isEmbedRequestMessage(message)) return;
    chain = chain.then(async () => {
      try {
        const vectors = pack(await model.embed(message.texts, message.kinds), dimension);
        post({ type: 'result', id: message.id, dimension, vectors }, [vectors.buffer as ArrayBuffer]);
      } catch (error) {
        post({ type: 'error', id: message.id, message: errorMessage(error) });
      }
    });
  });
  post({ type: 'ready', dimension, threads: model.threads });
}

void main();
