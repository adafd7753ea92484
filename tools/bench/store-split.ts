/**
 * One store's time split into its parts, each part measured on its own and interleaved text by text (order rotated)
 * so that machine noise hits them alike: over HTTP (POST /v1/memories to the server under test), the service in
 * process (`MemoryService.store`, no HTTP), and inside it the validation (the zod schema), the embedding of the text
 * (the model alone) and the write (`insertMemory`: duplicate check, row, vector, words, one transaction). What the
 * HTTP figure adds to the service's is the request's parsing, the auth and rate limit, and the response.
 */
import type { MemoryService } from '../../src/core/service.js';
import { storeInputSchema } from '../../src/core/schemas.js';
import type { MemoryStore } from '../../src/core/store.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { newMemoryId, newUuid } from '../../src/core/ids.js';
import { parseInput } from '../../src/core/validation.js';
import type { Embedder } from '../../src/core/embedder.js';
import { BENCH_KEY } from './children.js';
import { summarize, type Summary } from './stats.js';

export interface StoreSplit {
  http: Summary;
  service: Summary;
  validation: Summary;
  embedding: Summary;
  write: Summary;
  n: number;
}

export interface StoreSplitInput {
  /** The server under test. */
  url: string;
  /** An in-process service and its store, on a set of their own. */
  service: MemoryService;
  store: MemoryStore;
  embedder: Embedder;
  texts: readonly string[];
  n: number;
}

export async function measureStoreSplit(input: StoreSplitInput): Promise<StoreSplit> {
  const { service, store, embedder } = input;
  const app = await store.ensureApp('default');
  const times = { http: [] as number[], service: [] as number[], validation: [] as number[], embedding: [] as number[], write: [] as number[] };
  const timed = async (into: number[], run: () => unknown) => {
    const started = performance.now();
    await run();
    into.push(performance.now() - started);
  };
  for (let i = 0; i < input.n; i++) {
    // Every request a text of its own, so that none is answered as a duplicate (without the model).
    const text = `${input.texts[i % input.texts.length] ?? ''} (store ${i})`;
    const steps = [
      () =>
        timed(times.http, async () => {
          const res = await fetch(`${input.url}/v1/memories`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${BENCH_KEY}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ userId: 'store-bench', text }),
          });
          await res.arrayBuffer();
          if (res.status !== 201) throw new Error(`store failed: ${res.status}`);
        }),
      () => timed(times.service, () => service.store(LOCAL_CALLER, { userId: 'store-service', text })),
      () => timed(times.validation, () => parseInput(storeInputSchema, { userId: 'store-parts', text })),
      async () => {
        let embedding: Float32Array | undefined;
        await timed(times.embedding, async () => {
          [embedding] = await embedder.embed([text], 'document');
        });
        if (embedding === undefined) throw new Error('no vector');
        const memory = { id: newMemoryId(), uuid: newUuid(), userId: 'store-parts', appId: app.id, text, metadata: {}, createdAt: new Date().toISOString(), expiresAt: null, embedding };
        await timed(times.write, () => store.insertMemory(memory));
      },
    ];
    for (let k = 0; k < steps.length; k++) await (steps[(i + k) % steps.length] as () => Promise<void>)();
  }
  return {
    http: summarize(times.http),
    service: summarize(times.service),
    validation: summarize(times.validation),
    embedding: summarize(times.embedding),
    write: summarize(times.write),
    n: input.n,
  };
}
