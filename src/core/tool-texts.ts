/**
 * What a model reads about each memory tool: one text per tool, shared by the MCP tools (src/mcp/tools.ts) and the
 * AI SDK tools (src/ai-sdk/tools.ts), so that the two never drift apart. Each says when to call the tool, not only
 * what it does: that is what a model decides on.
 */
export interface ToolText {
  title: string;
  description: string;
}

export const TOOL_TEXTS = {
  store_memory: {
    title: 'Store a memory',
    description:
      'Save one durable fact about the user so that it can be recalled in later conversations. Call it after ' +
      'learning something likely to matter again: a preference, a personal detail, a relationship, a plan or ' +
      'decision, or a correction of something stored before. Store one self-contained fact per call, written ' +
      'to make sense on its own months later: in the third person or with names instead of "I"/"you", pronouns ' +
      'and relative dates resolved ("Alice\'s daughter Mia starts school in September 2026", not "she starts ' +
      'next month"). Do not store small talk, one-off requests, or secrets such as passwords. A fact that only ' +
      'holds for a while can carry expiresAt or ttlSeconds. Returns the new memory\'s id; if the same text is ' +
      'already stored for this user and app, nothing is added and duplicate is true (use update_memory to change it). ' +
      'With key (your own name for the fact, e.g. "profile:city"), a memory already stored under that key is ' +
      'replaced instead (same id, updated true): use it for facts that have one current value.',
  },
  recall_memories: {
    title: 'Recall memories',
    description:
      "Search the user's memories by meaning. Call it BEFORE answering anything that may depend on the user's " +
      'history: their preferences, people, plans, past decisions, or something they told you in an earlier ' +
      'conversation. Phrase the query as the question you need answered. By default it returns the relevant ' +
      'memories as lines "- [YYYY-MM-DD] <text>", dated when each was last stated: when two disagree, trust the ' +
      'newer. Format "raw" returns the items with their ids and scores (use it to find ids before ' +
      'update_memory or forget_memory). metadata, since and until narrow the search. Nothing relevant is a ' +
      'normal answer; lower minScore (e.g. 0.4) to cast a wider net.',
  },
  list_memories: {
    title: 'List memories',
    description:
      "List the user's stored memories, newest first, one page at a time (total tells how many there are). Use " +
      'it to review everything stored, e.g. when the user asks what you remember about them, or to find ids to ' +
      'forget. To answer a question, prefer recall_memories.',
  },
  get_memory: {
    title: 'Read a memory',
    description:
      'Read one memory by id, whole: its text, metadata, and when it was created, last updated and expires. Use ' +
      'it to check a memory before updating or forgetting it; an unknown or expired id is not_found.',
  },
  update_memory: {
    title: 'Update a memory',
    description:
      'Correct or refresh one stored memory in place, keeping its id and creation time: a new text (replaces ' +
      'the old one, e.g. when a fact changed: "Maria moved to Lisbon" over "Maria lives in Seattle"), new ' +
      'metadata (replaces it whole), or a new expiry (expiresAt, null to keep it for good, or ttlSeconds). Find ' +
      'the id with recall_memories (format "raw") or list_memories. Returns the memory as it now is.',
  },
  forget_memory: {
    title: 'Forget memories',
    description:
      'Permanently delete memories by id. Call it when the user asks you to forget something, or when a stored ' +
      'fact turned out wrong or outdated (then store the corrected fact). Find ids with recall_memories ' +
      '(format "raw") or list_memories. Pass id for one memory or ids for several. An id that is unknown or ' +
      'already deleted is not an error: deleted counts the memories actually removed.',
  },
} as const satisfies Record<string, ToolText>;

/** The text a model gets when recall found nothing: an empty string reads as a broken tool. */
export const NOTHING_RECALLED = 'No memories matched this query.';

/** What MCP's get_memory and forget_memory add: they also name a memory by the key it was stored under. */
export const BY_KEY_TEXTS = {
  get_memory: ' Pass key instead of id to read the memory stored under that key (store_memory with key).',
  forget_memory: ' Or pass key for the memory stored under that key; an unknown key is not an error either.',
} as const;
