/**
 * Words people add to a chat question that ask nothing of the memory: "where's Javed these days", "remind me what
 * meds I'm on", "what's my vehicle again", "I can't remember, which night is salsa?". As query terms they are
 * missing from every right memory and count against it, and a name with only them beside it looks like a memory met
 * through the name alone. The question's meaning is in the rest; "now" and "currently" stay (they ask for the
 * newer of two facts: ranking/question.ts).
 *
 * English only: the other languages' chat sets are small, and their fillers are not yet written down.
 */
const FILLERS =
  /(?<![\p{L}'\u2019])(?:these days|nowadays|at the moment|right now|again|remind me(?: of)?|real quick|quick question|by the way|btw|just wondering|i(?:'m| am) wondering|i forgot|i forget|i can['\u2019]?t remember|i don['\u2019]?t remember|(?:do|did) you (?:know|remember)|any idea|exactly|usually|normally|generally|typically|actually|basically|honestly|lol|lmao|haha|pls|please|i (?:said|told you|mentioned)|you said|i think|i guess|tho|though)(?![\p{L}'\u2019])/giu;

/** The text without the chat fillers (collapsed spaces), or the text itself when nothing else would be left. */
export function withoutFillers(text: string): string {
  const rest = text.replace(FILLERS, ' ').replace(/\s{2,}/gu, ' ').trim();
  return /[\p{L}\p{N}]/u.test(rest) ? rest : text;
}
