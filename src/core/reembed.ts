import type { Embedder } from './embedder.js';
import type { MemoryStore } from './store.js';

export interface ReembedProgress {
  done: number;
  total: number;
}

export interface ReembedOptions {
  /** Texts per model call (default 64). */
  batchSize?: number;
  onProgress?: (progress: ReembedProgress) => void;
}

export interface ReembedResult {
  /** The model the vectors were made with before, if any was recorded. */
  from: string | undefined;
  to: string;
  dimension: number;
  /** Memories that got a vector of the new model. */
  memories: number;
  /** Of those, memories stored while the rest were embedded, embedded inside the swap. */
  late: number;
}

/**
 * `agent-memory reembed`, the same on every backend: rebuilds every vector with another embedding model (possibly
 * of another dimension). The slow part, embedding, runs first, outside any transaction, so the database stays
 * readable and writable meanwhile; then the store swaps the vector index, the vectors and the model record in one
 * transaction (MemoryStore.replaceEmbeddings), so a failure or a crash at any point leaves the old model and its
 * vectors intact. Memories stored while the model runs are caught by a second pass, and the last few inside the
 * swap itself, so nothing is left without a vector.
 *
 * Memories are read page by page in id order through `exportMemories` (their old vectors come along unused: the
 * reading costs little beside the model). The new vectors wait in memory until the swap: about 2 KiB a memory at
 * 512 dimensions.
 */
export async function reembed(
  store: MemoryStore,
  embedder: Pick<Embedder, 'ready' | 'embed'>,
  options: ReembedOptions = {},
): Promise<ReembedResult> {
  const info = await embedder.ready();
  const model = { model: info.model, dimension: info.dimension };
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  const previous = await store.getModel();
  const total = await store.countMemories();
  const vectors = new Map<string, Float32Array>();

  const embed = async (memories: ReadonlyArray<{ id: string; text: string }>): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let i = 0; i < memories.length; i += batchSize) {
      const batch = memories.slice(i, i + batchSize);
      const embedded = await embedder.embed(
        batch.map((m) => m.text),
        'document',
      );
      batch.forEach((memory, j) => {
        const vector = embedded[j];
        if (!vector || vector.length !== model.dimension) {
          throw new Error(`The model "${model.model}" returned no vector of ${model.dimension} dimensions for the memory ${memory.id}.`);
        }
        out.push(vector);
      });
    }
    return out;
  };

  /** One pass over every memory, embedding those not embedded yet. */
  const pass = async (report: boolean): Promise<void> => {
    let after: string | null = null;
    do {
      const page = await store.exportMemories(after, batchSize);
      const fresh = page.memories.filter((m) => !vectors.has(m.id));
      const embedded = await embed(fresh);
      fresh.forEach((m, i) => vectors.set(m.id, embedded[i] as Float32Array));
      if (report) options.onProgress?.({ done: vectors.size, total: Math.max(total, vectors.size) });
      after = page.next;
    } while (after !== null);
  };

  await pass(true);
  // Ids are random, so memories stored during the first pass may sit anywhere in id order: a second pass finds them
  // (embedding only those); what is stored during that one is left for the swap.
  await pass(false);
  let late = 0;
  const { memories } = await store.replaceEmbeddings({
    model,
    vectors,
    embedMissing: (missing) => {
      late += missing.length;
      return embed(missing);
    },
  });
  return { from: previous?.model, to: model.model, dimension: model.dimension, memories, late };
}
