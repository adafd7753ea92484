/**
 * `agent-memory/langgraph`: a LangGraph store over agent-memory. Loads `@langchain/langgraph-checkpoint` (an
 * optional peer dependency); the package's other entries load nothing of LangGraph.
 */
export { AgentMemoryStore, InvalidNamespaceError, type AgentMemoryStoreOptions } from './store.js';
export { UnsupportedFilterError } from './filter.js';
/** What of a chat message is worth a memory (its statements), for a node that stores what the user said. */
export { statementsOf } from '../core/text/statements.js';
