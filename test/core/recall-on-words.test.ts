/**
 * A recall whose query cannot be embedded (the model's endpoint is down, past its retries) is answered on the
 * words, with explain's path "words", never a 5xx; on both backends. The model is the hash model behind a real
 * OpenAI-compatible server on loopback (tools/shared/embeddings-server.ts).
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { openRuntime } from '../../src/runtime/runtime.js';
import { useEmbeddingsEndpoint } from '../helpers/embeddings-endpoint.js';

const endpoint = useEmbeddingsEndpoint('words');

describe.each(endpoint.backends)('recall with the endpoint down on %s', (_name, storage) => {
  it('answers on the words (path "words"), then with its vectors again once the endpoint is back', async () => {
    endpoint.server.fail({ kind: 'ok' }, 0);
    const runtime = await openRuntime({ ...storage(), model: 'remote-hash', modelDir: undefined, endpoint: { url: endpoint.server.url } });
    try {
      await runtime.modelReady;
      // Its calibration fitted first (self-calibration.ts), so that no fit is running while the endpoint is down.
      await expect(runtime.calibrated).resolves.toBe('fitted');
      for (const text of ['Anna works at a bakery in Berlin.', 'Mia was born in 2019.', 'The team meets on Mondays.']) {
        await runtime.service.store(LOCAL_CALLER, { userId: 'u', text });
      }
      // Down: every attempt (the first and its 3 retries) answers 503.
      endpoint.server.fail({ kind: 'status', status: 503 });
      const down = await runtime.service.recall(LOCAL_CALLER, { userId: 'u', query: 'Where does Anna work, at the bakery?', minScore: 0, explain: true });
      expect(down.memories[0]?.text).toBe('Anna works at a bakery in Berlin.');
      expect(down.memories.every((m) => m.explain?.path === 'words')).toBe(true);
      expect(down.memories.every((m) => m.explain?.cosine === 0)).toBe(true);

      endpoint.server.fail({ kind: 'ok' }, 0);
      const back = await runtime.service.recall(LOCAL_CALLER, { userId: 'u', query: 'Where does Anna work, at the bakery?', minScore: 0, explain: true });
      expect(back.memories[0]?.text).toBe('Anna works at a bakery in Berlin.');
      expect(back.memories[0]?.explain?.cosine).toBeGreaterThan(0);
    } finally {
      await runtime.close();
    }
  }, 30_000);
});
