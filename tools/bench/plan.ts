/** The benchmark's command line and what it implies: how much of everything to measure. */
import { parseArgs } from 'node:util';

export interface BenchPlan {
  quick: boolean;
  /** True when --sizes or --multi-users changed the sets from the mode's defaults. */
  sizesChosen: boolean;
  queries: number;
  fillerBases: number;
  singleStores: number;
  clients: number;
  throughputSeconds: number;
  modelBatchTexts: number;
  /** Sizes of the single-user sets. */
  sizes: number[];
  /** The multi-user set; `users` 0 leaves it out. */
  multi: { users: number; perUser: number };
  peerSizes: number[];
  peerQueries: number;
  exactChecks: number;
  mcpRecalls: number;
  mcpStores: number;
}

export interface BenchOptions {
  /** A postgres:// URL: measure PostgreSQL instead of SQLite (see postgres-backend.ts). */
  databaseUrl: string | undefined;
  keep: boolean;
  out: string | undefined;
  data: string | undefined;
  peer: boolean;
  mcp: boolean;
  plan: BenchPlan;
}

const QUICK_PLAN: BenchPlan = {
  quick: true,
  sizesChosen: false,
  queries: 30,
  fillerBases: 31,
  singleStores: 15,
  clients: 4,
  throughputSeconds: 6,
  modelBatchTexts: 64,
  sizes: [1_000, 10_000],
  multi: { users: 100, perUser: 1_000 },
  peerSizes: [1_000, 10_000],
  peerQueries: 15,
  exactChecks: 5,
  mcpRecalls: 10,
  mcpStores: 5,
};

const FULL_PLAN: BenchPlan = {
  quick: false,
  sizesChosen: false,
  queries: 81,
  fillerBases: 231,
  singleStores: 40,
  clients: 8,
  throughputSeconds: 12,
  modelBatchTexts: 128,
  sizes: [1_000, 10_000, 100_000],
  multi: { users: 1_000, perUser: 1_000 },
  peerSizes: [1_000, 10_000, 100_000],
  peerQueries: 30,
  exactChecks: 15,
  mcpRecalls: 30,
  mcpStores: 15,
};

/** The reference server rewrites its whole file on every call: beyond this it would take hours. */
const PEER_MAX = 100_000;

function integer(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new Error(`${name} takes integers from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}, not "${raw}".`);
  }
  return Number(raw);
}

/** The mode's plan with the sizes given on the command line, if any. */
function withSizes(plan: BenchPlan, sizes: string | undefined, multiUsers: string | undefined): BenchPlan {
  if (sizes === undefined && multiUsers === undefined) return plan;
  const single = sizes === undefined ? plan.sizes : [...new Set(sizes.split(',').map((s) => integer('--sizes', s.trim(), 100, 10_000_000)))].sort((a, b) => a - b);
  const users = multiUsers === undefined ? plan.multi.users : integer('--multi-users', multiUsers, 0, 100_000);
  return {
    ...plan,
    sizesChosen: true,
    sizes: single,
    multi: { users, perUser: plan.multi.perUser },
    peerSizes: single.filter((n) => n <= PEER_MAX),
  };
}

export const BENCH_USAGE = `usage: npm run bench [-- --quick] [--keep] [--out FILE] [--data DIR] [--no-peer] [--no-mcp]
                       [--sizes N,N,...] [--multi-users N] [--database-url postgres://...]
  --quick            smaller sets (about 2 minutes on 2 cores instead of 7-10)
  --keep             keep the scratch databases (and PostgreSQL schemas) after the run
  --out FILE         where the report goes (default bench-results/latest*.md)
  --data DIR         LoCoMo-style data for recall quality (default MEMORY_BENCH_DATA, else synthetic)
  --no-peer          leave out the reference MCP memory server
  --no-mcp           leave out the MCP stdio round trips
  --sizes N,N,...    single-user sizes, e.g. 1000,10000
  --multi-users N    N users of 1,000 memories (0 leaves the set out)
  --database-url URL measure PostgreSQL instead of SQLite
  -h, --help         this text`;

/** What a mistake in the arguments says: one line, then the usage (never a stack trace). */
export class BenchUsageError extends Error {
  override name = 'BenchUsageError';
}

/** `undefined` when --help was asked for (print BENCH_USAGE); throws BenchUsageError on a bad argument. */
export function parseOptions(argv: string[]): BenchOptions | undefined {
  let parsed;
  try {
    parsed = parseBenchArgs(argv);
  } catch (error) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  return parsed;
}

function parseBenchArgs(argv: string[]): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      quick: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      out: { type: 'string' },
      data: { type: 'string' },
      'no-peer': { type: 'boolean', default: false },
      'no-mcp': { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      sizes: { type: 'string' },
      'multi-users': { type: 'string' },
    },
    allowPositionals: false,
  });
  if (values.help === true) return undefined;
  return {
    databaseUrl: values['database-url'],
    keep: values.keep === true,
    out: values.out,
    data: values.data,
    peer: values['no-peer'] !== true,
    mcp: values['no-mcp'] !== true,
    plan: withSizes(values.quick === true ? QUICK_PLAN : FULL_PLAN, values.sizes, values['multi-users']),
  };
}
