/** `agent-memory` from the sources (what bin/agent-memory.js runs from dist/), for the benchmark's child processes. */
import { main } from '../../src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agent-memory: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
