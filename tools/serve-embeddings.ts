/**
 * Serves an embedding model of this package as an OpenAI-compatible API on loopback, so that the service can be run
 * and measured through `--embed-url` on known weights (the default USE-lite unless told):
 *
 *   node --import tsx tools/serve-embeddings.ts --port 8090 [--model use-lite|hash|<hub id>] [--host 127.0.0.1]
 *   agent-memory serve --embed-url http://127.0.0.1:8090/v1 --model use-lite-endpoint
 *
 * The name the service is given (`--model`) is what it records and calibrates under, whatever this serves.
 */
import { parseArgs } from 'node:util';
import { createEmbedder } from '../src/embeddings/index.js';
import { startEmbeddingsServer } from './shared/embeddings-server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8090' },
    host: { type: 'string', default: '127.0.0.1' },
    model: { type: 'string', default: 'use-lite' },
    'model-dir': { type: 'string' },
  },
});
const embedder = createEmbedder({ model: values.model, modelDir: values['model-dir'] });
const info = await embedder.ready();
const server = await startEmbeddingsServer({ embedder, port: Number(values.port), host: values.host });
console.error(`serving ${info.model} (${info.dimension} dimensions) at ${server.url}/embeddings`);
const stop = (): void => {
  void server.close().then(() => embedder.close()).then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
