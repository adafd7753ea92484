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
