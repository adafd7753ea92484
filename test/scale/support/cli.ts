/**
 * The CLI from the TypeScript sources, for tests that spawn real `agent-memory` processes without a build first
 * (`node --import tsx test/scale/support/cli.ts serve ...`); the same as bin/agent-memory.js over dist/.
 */
import { main } from '../../../src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`agent-memory: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
