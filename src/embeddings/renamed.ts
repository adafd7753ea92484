import type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';

/**
 * A model under another name (`MEMORY_MODEL_IDENTITY`, for measuring): the same vectors, recorded and calibrated as
 * `identity`. It lets USE-lite, whose score map is hand-fitted and built in, be calibrated by the service as any
 * unknown model would be, and the two compared in one run.
 */
export class RenamedEmbedder implements Embedder {
  constructor(
    private readonly inner: Embedder,
    readonly model: string,
  ) {}

  async ready(): Promise<EmbedderInfo> {
    const info = await this.inner.ready();
    return { ...info, model: this.model };
  }

  embed(texts: readonly string[], kind: EmbedKind, caller?: string): Promise<Float32Array[]> {
    return this.inner.embed(texts, kind, caller);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
