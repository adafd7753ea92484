/**
 * An OpenAI-compatible embeddings API (`POST /v1/embeddings`, `{ model, input }` → `{ data: [{ index, embedding }] }`)
 * over any Embedder, on loopback. The endpoint embedder's tests run the hash model behind it and tell it to fail in
 * each way a real server does; tools/serve-embeddings.ts runs USE-lite behind it, so the service can be measured
 * through the endpoint on the same weights as its default.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '../../src/core/embedder.js';

/** How the next answers go wrong; `ok` answers properly. */
export type Failure =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'wrong-count' }
  | { kind: 'nan' }
  | { kind: 'wrong-dimension' }
  | { kind: 'slow'; ms: number }
  /** The connection is dropped without an answer. */
  | { kind: 'hang-up' };

export interface EmbeddingsServer {
  /** The API base, e.g. http://127.0.0.1:40123/v1. */
  readonly url: string;
  /** Every request's input and Authorization header, in order of arrival. */
  readonly requests: { input: string[]; authorization: string | undefined }[];
  /** The answers to come: `times` requests fail this way (Infinity: until told otherwise), then it answers properly. */
  fail(failure: Failure, times?: number): void;
  close(): Promise<void>;
}

export interface EmbeddingsServerOptions {
  embedder: Embedder;
  port?: number | undefined;
  host?: string | undefined;
  /** When set, requests without `Authorization: Bearer <apiKey>` answer 401. */
  apiKey?: string | undefined;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startEmbeddingsServer(options: EmbeddingsServerOptions): Promise<EmbeddingsServer> {
  const requests: EmbeddingsServer['requests'] = [];
  let failure: Failure = { kind: 'ok' };
  let remaining = 0;
  const current = (): Failure => {
    if (remaining <= 0) return { kind: 'ok' };
    remaining--;
    return failure;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'POST' || request.url !== '/v1/embeddings') return send(response, 404, { error: { message: 'not found' } });
    const authorization = request.headers.authorization;
    let input: string[];
    let model: string;
    try {
      const body = JSON.parse(await readBody(request)) as { model?: unknown; input?: unknown };
      const raw = typeof body.input === 'string' ? [body.input] : body.input;
      if (!Array.isArray(raw) || !raw.every((text) => typeof text === 'string') || typeof body.model !== 'string') throw new Error();
      input = raw as string[];
      model = body.model;
    } catch {
      return send(response, 400, { error: { message: 'expected {"model": string, "input": string[]}' } });
    }
    requests.push({ input, authorization });
    if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) {
      return send(response, 401, { error: { message: 'Incorrect API key provided.' } });
    }
    const now = current();
    if (now.kind === 'hang-up') return void request.socket.destroy();
    if (now.kind === 'status') {
      return send(response, now.status, { error: { message: `failing with ${now.status}` } }, now.retryAfter !== undefined ? { 'retry-after': now.retryAfter } : {});
    }
    if (now.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, now.ms));
    const vectors = (await options.embedder.embed(input, 'document')).map((vector) => Array.from(vector));
    if (now.kind === 'wrong-count') vectors.pop();
    if (now.kind === 'nan' && vectors[0]) vectors[0][0] = Number.NaN;
    if (now.kind === 'wrong-dimension' && vectors[0]) vectors[0].push(0.5);
    const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));
    // JSON has no NaN: write it as a bare token, as a broken server would.
    // JSON has no NaN: JSON.stringify writes it as null, as a broken server's serializer would.
    send(response, 200, { object: 'list', model, data, usage: { prompt_tokens: 0, total_tokens: 0 } });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: { message: (error as Error).message } });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/v1`,
    requests,
    fail(next, times = Number.POSITIVE_INFINITY) {
      failure = next;
      remaining = times;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
