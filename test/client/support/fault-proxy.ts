import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Fault injection between the client and a live server: each request takes the next fault from the queue (then
 * `forward`). The real server still does the real work; the proxy only lies about, delays or loses its answers.
 */
export type Fault =
  | { kind: 'forward' }
  /** Answer this without asking the server. */
  | { kind: 'respond'; status: number; headers?: Record<string, string>; body?: string }
  /** Forward (the server does the work), then throw its answer away and send this instead. */
  | { kind: 'forward-then-respond'; status: number; headers?: Record<string, string>; body?: string }
  /** Forward, then cut the connection: the answer is lost on the way back. */
  | { kind: 'forward-then-drop' }
  /** Never answer. */
  | { kind: 'hang' };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  body: string;
}

export interface FaultProxy {
  url: string;
  requests: RecordedRequest[];
  /** What the real server answered to each forwarded request, in order. */
  upstream: UpstreamAnswer[];
  enqueue(...faults: Fault[]): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, headers: Record<string, string> | Headers, body: string): void {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
  });
  res.writeHead(status, out);
  res.end(body);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function startFaultProxy(upstreamUrl: string): Promise<FaultProxy> {
  const queue: Fault[] = [];
  const requests: RecordedRequest[] = [];
  const upstream: UpstreamAnswer[] = [];

  const forward = async (req: IncomingMessage, body: string): Promise<UpstreamAnswer> => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers.set(name, value);
    }
    const response = await fetch(`${upstreamUrl}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const answer = { status: response.status, headers: response.headers, body: await response.text() };
    upstream.push(answer);
    return answer;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const fault = queue.shift() ?? { kind: 'forward' };
      switch (fault.kind) {
        case 'hang':
          return;
        case 'respond':
          send(res, fault.status, fault.headers ?? {}, fault.body ?? '');
          return;
        case 'forward': {
          const answer = await forward(req, body);
          send(res, answer.status, answer.headers, answer.body);
          return;
        }
        case 'forward-then-respond':
          await forward(req, body);
          send(res, fault.status, fault.headers ?? {}, fault.body ?? '');
          return;
        case 'forward-then-drop':
          await forward(req, body);
          req.socket.destroy();
          return;
      }
    })().catch((error: unknown) => {
      console.error('fault proxy failed', error);
      res.destroy();
    });
  });
  const url = await listen(server);
  return {
    url,
    requests,
    upstream,
    enqueue: (...faults) => queue.push(...faults),
    close: () => closeServer(server),
  };
}

/** A server that accepts requests and then says nothing, or sends headers and a partial body and then stalls. */
export async function startSilentServer(mode: 'no-answer' | 'stall-body'): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    if (mode === 'stall-body') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"memories": [');
    }
  });
  const url = await listen(server);
  return { url, hits: () => hits, close: () => closeServer(server) };
}

/** A loopback address where nothing listens: a port that was just free. */
export async function closedPortUrl(): Promise<string> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
