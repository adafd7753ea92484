/**
 * Query and document prefixes an embedding model was trained with, by model family. A model served by an endpoint
 * (Ollama, vLLM, TEI, OpenAI) gets raw text, so the service adds what the family expects: without it e5 and nomic
 * models lose much of their retrieval quality. Matched on the model's name; `--query-prefix` / `--document-prefix`
 * (MEMORY_EMBED_QUERY_PREFIX, MEMORY_EMBED_DOCUMENT_PREFIX) override the table.
 */
import { BGE_QUERY_INSTRUCTION } from './transformers.js';

export interface Prefixes {
  query: string;
  document: string;
}

const FAMILIES: readonly { pattern: RegExp; prefixes: Prefixes }[] = [
  // multilingual-e5, e5-large-v2, …: both sides marked.
  { pattern: /(^|[/:_-])e5[-_.]/i, prefixes: { query: 'query: ', document: 'passage: ' } },
  { pattern: /nomic-embed-text/i, prefixes: { query: 'search_query: ', document: 'search_document: ' } },
  // The English BGE v1.5 models: an instruction on the query side only; bge-m3 and the Chinese ones take none.
  { pattern: /bge-(small|base|large)-en/i, prefixes: { query: BGE_QUERY_INSTRUCTION, document: '' } },
];

const NONE: Prefixes = { query: '', document: '' };

/** The prefixes for a model name, with the overrides applied (an empty override string means "no prefix"). */
export function prefixesFor(model: string, overrides: Partial<Prefixes> = {}): Prefixes {
  const family = FAMILIES.find((entry) => entry.pattern.test(model))?.prefixes ?? NONE;
  return { query: overrides.query ?? family.query, document: overrides.document ?? family.document };
}
