/**
 * `memoryMiddleware(...)`: a `LanguageModelMiddleware` for `wrapLanguageModel` that gives any model the user's
 * memories. Before each call it recalls for the last user message and adds the recall context as a system message;
 * a recall that fails or outlasts `timeoutMs` is logged and the call goes on without memories (memory must never
 * take the agent down). With `store: true` it also stores what the user said worth remembering (its statements, by
 * default), after the call, without delaying it.
 */
import type { LanguageModelMiddleware } from 'ai';
import { statementsOf } from '../core/text/statements.js';
import type { MemoryBackend, MemoryScope } from './scope.js';

/** Where the middleware says that it went on without memories, or could not store. `console` fits. */
export interface MemoryLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface MemoryMiddlewareOptions extends MemoryScope {
  client: Pick<MemoryBackend, 'recall' | 'store'>;
  /** Most memories added (default: the server's recall default). */
  limit?: number;
  /** Only memories at least this relevant (default: the server's recall default). */
  minScore?: number;
  /** Longest wait for the recall before the call goes on without memories, in ms (default 2000). */
  timeoutMs?: number;
  /** Store the last user message after each call (default false: storing is a decision of its own). */
  store?: boolean;
  /**
   * What `store` keeps of the message: `'statements'` (default) its statements joined (facts, preferences, plans,
   * corrections; not questions, requests, greetings or small talk), `'everything'` the message as it is, or a function
   * that returns the text to store (undefined: nothing).
   */
  keep?: MemoryKeep;
  logger?: MemoryLogger;
}

export const DEFAULT_RECALL_TIMEOUT_MS = 2000;

export type MemoryKeep = 'statements' | 'everything' | ((message: string) => string | undefined);

/** The text to store for a message under `keep`, or undefined when nothing of it is worth storing. */
export function keptText(message: string, keep: MemoryKeep = 'statements'): string | undefined {
  if (keep === 'everything') return message;
  if (keep === 'statements') return statementsOf(message);
  const text = keep(message)?.trim();
  return text === undefined || text.length === 0 ? undefined : text;
}

/** The call options as the installed `ai` types them; the prompt is the same shape in specification v3 and v4. */
type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];

/** The text of the last user message (its text parts joined), or undefined when it has none. */
export function lastUserText(prompt: Prompt): string | undefined {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== 'user') continue;
    const text = message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n')
      .trim();
    return text.length > 0 ? text : undefined;
  }
  return undefined;
}

/** Heads the recalled lines, so that the model knows what they are and which to trust. */
export function memorySystemMessage(context: string): string {
  return `What you remember about this user from earlier conversations (dated; when two disagree, trust the newer):\n${context}`;
}

/**
 * The prompt with the memories as a system message after the leading system messages: some providers (Anthropic)
 * accept system messages only before the conversation.
 */
function withMemories(prompt: Prompt, context: string): Prompt {
  const at = prompt.findIndex((message) => message.role !== 'system');
  const index = at === -1 ? prompt.length : at;
  return [...prompt.slice(0, index), { role: 'system', content: memorySystemMessage(context) }, ...prompt.slice(index)];
}

class RecallTimeout extends Error {
  override readonly name = 'RecallTimeout';
}

/** `work`, or a RecallTimeout after `ms`; the timer never keeps the process alive. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RecallTimeout(`recall took longer than ${ms} ms`)), ms);
    (timer as { unref?: () => void }).unref?.();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Without a logger of the program's, warnings go to the console: this runs inside the program's own process (a
 * server, an edge function), where a silent fallback would hide that the model answered without memories.
 */
const consoleLogger: MemoryLogger = {
  // eslint-disable-next-line no-console -- the documented default, see above
  warn: (message, fields) => console.warn(`agent-memory: ${message}`, fields ?? {}),
};

export function memoryMiddleware(options: MemoryMiddlewareOptions): LanguageModelMiddleware {
  const { client, userId, appId, limit, minScore } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_RECALL_TIMEOUT_MS;
  const logger = options.logger ?? consoleLogger;
  const scope = { userId, ...(appId === undefined ? {} : { appId }) };

  // A tool loop calls the model once per step with the same last user message: it is stored once, not per step
  // (the server would answer the repeats as duplicates, but only after embedding each).
  let lastStored: string | undefined;
  const rememberUser = (params: CallOptions): void => {
    if (!options.store) return;
    const said = lastUserText(params.prompt);
    // A question, a request or a greeting is not memory: stored, it would later outrank the fact that answers it.
    const text = said === undefined ? undefined : keptText(said, options.keep);
    if (text === undefined || text === lastStored) return;
    lastStored = text;
    // After the call and not awaited: the answer never waits on the store.
    client.store({ ...scope, text }).catch((error: unknown) => {
      if (lastStored === text) lastStored = undefined;
      logger.warn('could not store the user message', { userId, error: error instanceof Error ? error.message : String(error) });
    });
  };

  return {
    // 'v3' is what ai 6 requires; ai 7 accepts v3 and v4 middleware alike (the prompt is the same shape).
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      const query = lastUserText(params.prompt);
      if (query === undefined) return params;
      const recall = client.recall({
        ...scope,
        query,
        ...(limit === undefined ? {} : { limit }),
        ...(minScore === undefined ? {} : { minScore }),
      });
      // A recall that loses the race still settles later: its failure must not surface as an unhandled rejection.
      recall.catch(() => undefined);
      try {
        const context = await within(recall, timeoutMs);
        return context === '' ? params : { ...params, prompt: withMemories(params.prompt, context) };
      } catch (error) {
        logger.warn('recall failed; the model is called without memories', {
          userId,
          reason: error instanceof RecallTimeout ? 'timeout' : 'error',
          error: error instanceof Error ? error.message : String(error),
        });
        return params;
      }
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      rememberUser(params);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      rememberUser(params);
      return result;
    },
  };
}
