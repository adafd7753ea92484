/**
 * A text that quotes input (a file name, a line's content, a key), made safe to print on a terminal: characters
 * that would act rather than show are written as escapes. A file starting with `\x1b]0;...` once printed its raw
 * ESC in the "not valid JSON" message, which retitles the terminal; an OSC 52 sequence can write to the clipboard,
 * and a bidi override can make a message read backwards.
 *
 * Escaped: C0 controls (`\n`, `\r`, `\t` by name, the rest `\xHH`), DEL and C1 (`\xHH`), the bidi embeddings,
 * overrides and isolates, the zero-width characters, the line and paragraph separators, and unpaired surrogates
 * (`\uHHHH`). Everything else, other scripts and emoji included, is printed as it is.
 */

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udfff]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const named = NAMED[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
