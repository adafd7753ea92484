/** A text as a regular expression that matches it literally (a name, a word typed by a user). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
