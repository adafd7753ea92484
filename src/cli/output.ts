/**
 * Command output goes to stdout (what the user asked for) and stderr (notices); the `mcp` command keeps stdout
 * for protocol messages only, so it never calls `print`.
 */
export interface Output {
  print(line: string): void;
  notice(line: string): void;
}

export const consoleOutput: Output = {
  print: (line) => process.stdout.write(`${line}\n`),
  notice: (line) => process.stderr.write(`${line}\n`),
};

/** Fixed-width columns for small tables (keys list). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}
