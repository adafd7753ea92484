/**
 * The API key lives in sessionStorage: this tab only, gone when it closes, never in a URL (so never in history,
 * a Referer or a server log) and never written anywhere else.
 */
const STORAGE_NAME = 'agent-memory.key';

/** Where the key is kept when the browser refuses sessionStorage (some privacy modes): until the page reloads. */
let memoryOnly: string | null = null;

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_NAME);
  } catch {
    return memoryOnly;
  }
}

export function keepKey(key: string): void {
  memoryOnly = key;
  try {
    sessionStorage.setItem(STORAGE_NAME, key);
  } catch {
    /* kept in memory only */
  }
}

export function forgetKey(): void {
  memoryOnly = null;
  try {
    sessionStorage.removeItem(STORAGE_NAME);
  } catch {
    /* nothing stored */
  }
}
