/** Every limit and default of the contract, in one place: schemas, docs and tests read them from here. */
export const LIMITS = {
  userIdMaxLength: 256,
  textMaxLength: 16_000,
  queryMaxLength: 16_000,
  metadataMaxBytes: 16 * 1024,
  /** Nesting levels of metadata (the object itself is level 1): deeper JSON overflowed the stack when serialized. */
  metadataMaxDepth: 32,
  bodyMaxBytes: 1024 * 1024,
  pageSizeDefault: 20,
  pageSizeMax: 100,
  recallLimitDefault: 5,
  recallLimitMax: 100,
  recallMinScoreDefault: 0.7,
  batchDeleteMaxIds: 1_000,
  idempotencyKeyMaxLength: 255,
  /** A caller's own key for a memory (PUT /v1/memories/by-key/{key}), in characters. */
  memoryKeyMaxLength: 256,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  /** A client clock a little ahead of ours must not make an import fail. */
  createdAtFutureSkewMs: 60 * 1000,
  /** The longest time to live a store or update may give: ten years. */
  ttlSecondsMax: 10 * 365 * 24 * 60 * 60,
  /** Keys of one metadata filter. */
  metadataFilterMaxKeys: 16,
  /**
   * A metadata key or value as JSON, at most this long, to be matched by a filter: longer ones are not indexed
   * (a B-tree entry has a size limit), and a filter may not name them.
   */
  metadataFieldMaxChars: 512,
} as const;

export const DEFAULT_APP_SLUG = 'default';
