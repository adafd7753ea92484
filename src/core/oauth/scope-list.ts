import { isScope, type Scope } from '../scopes.js';

/** An OAuth scope string (space-separated) as the known scopes in it; unknown words are dropped. */
export function parseScopes(text: string): Scope[] {
  return [...new Set(text.split(' ').filter(isScope))];
}
