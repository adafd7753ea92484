/** Identifier shapes, free of Node imports so that the schemas (and the client that uses them) run anywhere. */
export const MEMORY_ID_PATTERN = /^mem_[0-9A-Za-z]{12}$/;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
