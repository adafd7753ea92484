/** Fixed-width columns for small tables (keys list). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

// C0 and C1 control characters and DEL: ESC among them starts terminal escape sequences.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text that came from users (a key's label) as it may be printed on a terminal: control characters are shown as
 * `\u001b` and the like instead of being sent to the terminal, which would obey them (colours, cursor moves,
 * a forged line).
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
