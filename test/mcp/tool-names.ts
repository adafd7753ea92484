/** The tools every MCP transport lists, sorted: one list for the tests that check tools/list. */
export const TOOL_NAMES = ['forget_memory', 'get_memory', 'list_memories', 'recall_memories', 'store_memory', 'update_memory'] as const;
