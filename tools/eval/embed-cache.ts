/**
 * Tuning only: a file cache of embeddings keyed by text, so that ranking variants can be evaluated in seconds
 * instead of re-embedding 2,760 memories (minutes with USE-lite). Lives under `.tmp/` (git-ignored). The final
 * figures never come from here: `tools/eval.ts` embeds through the real service.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EmbedKind, Embedder } from '../../src/embeddings/types.js';

export class EmbedCache {
  readonly #path: string;
  readonly #vectors = new Map<string, Float32Array>();
  #dirty = false;
  #savedAt = Date.now();

  constructor(path: string) {
    this.#path = path;
    if (existsSync(path)) {
      const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
      for (const [text, b64] of Object.entries(stored)) {
        const bytes = Buffer.from(b64, 'base64');
        this.#vectors.set(text, new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice());
      }
    }
  }

  get size(): number {
    return this.#vectors.size;
  }

  get(text: string): Float32Array | undefined {
    return this.#vectors.get(text);
  }

  /** Embeds the texts not cached yet (in chunks, saving every half minute so an interrupted run keeps its work; `save` at the end). */
  async fill(embedder: Embedder, texts: readonly string[], kind: EmbedKind, onProgress?: (done: number, total: number) => void): Promise<void> {
    const missing = [...new Set(texts)].filter((t) => !this.#vectors.has(t));
    const chunk = 64;
    for (let i = 0; i < missing.length; i += chunk) {
      const part = missing.slice(i, i + chunk);
      const vectors = await embedder.embed(part, kind);
      part.forEach((t, j) => {
        const v = vectors[j];
        if (v) this.#vectors.set(t, v);
      });
      this.#dirty = true;
      // The file grows to tens of MB: rewrite it every half minute, not after every chunk.
      if (Date.now() - this.#savedAt > 30_000) this.save();
      onProgress?.(Math.min(i + chunk, missing.length), missing.length);
    }
  }

  save(): void {
    if (!this.#dirty) return;
    mkdirSync(dirname(this.#path), { recursive: true });
    const out: Record<string, string> = {};
    for (const [text, v] of this.#vectors) out[text] = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
    writeFileSync(this.#path, JSON.stringify(out));
    this.#dirty = false;
    this.#savedAt = Date.now();
  }
}
