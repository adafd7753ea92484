#!/usr/bin/env node
// The CLI entry: the compiled TypeScript lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`agent-memory: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
