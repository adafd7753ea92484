/**
 * How a LangGraph namespace names agent-memory's user and app: `[userId]` is the user in the app "default", and
 * `[userId, appId]` the user in that app (a slug, created on first put). Nothing else maps: a namespace of another
 * depth is refused with the base class's InvalidNamespaceError, before any request.
 */
import { InvalidNamespaceError } from '@langchain/langgraph-checkpoint';
import { DEFAULT_APP_SLUG } from '../core/limits.js';

export interface Owner {
  userId: string;
  appId: string;
}

const SHAPE = 'agent-memory maps a namespace to [userId] (the app "default") or [userId, appId]';

/** The user and app a namespace (of a get, put or delete) names. */
export function ownerOf(namespace: readonly string[]): Owner {
  const [userId, appId, ...rest] = namespace;
  if (userId === undefined || rest.length > 0) {
    throw new InvalidNamespaceError(`${SHAPE}; got [${namespace.join(', ')}] (${namespace.length} labels).`);
  }
  return { userId, appId: appId ?? DEFAULT_APP_SLUG };
}

/** A search prefix: the user, and the app when named (else every app the API key can see). */
export function prefixOwner(prefix: readonly string[]): { userId: string; appId: string | undefined } {
  if (prefix.length === 0) {
    throw new InvalidNamespaceError(`${SHAPE}: a search needs at least the user, [userId], since memories are kept per user.`);
  }
  const { userId, appId } = ownerOf(prefix);
  return { userId, appId: prefix.length === 2 ? appId : undefined };
}

/** The namespace a memory of this user and app is reported under: [userId] in "default", else [userId, appId]. */
export function namespaceOf(userId: string, appSlug: string): string[] {
  return appSlug === DEFAULT_APP_SLUG ? [userId] : [userId, appSlug];
}
