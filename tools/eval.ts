/**
 * Recall evaluation through the real service: stores a dataset's memories with `MemoryService.store` (the real
 * embedding model, the SQLite backend, the dataset id in metadata), asks every query with `MemoryService.recall`,
 * and prints recall@5, recall@10, hit@5, MRR@10 and nDCG@10 per category, what recall returns at the given
 * limit/minScore and at the defaults (5 / 0.7), and how often off-topic questions return nothing.
 *
 *   npm run eval [-- --db DIR]           every set of the suite (tools/eval/suite.ts), one table
 *   npm run eval -- --data DIR [--limit K] [--min-score S] [--out RUN.jsonl] [--db PATH]
 *                   [--users a,b] [--off-topic FILE] [--model NAME] [--model-dir DIR] [--embed-url URL]
 *
 * A model without a built-in calibration (or MEMORY_MODEL_IDENTITY=NAME, which evaluates the model under another
 * name) is calibrated by the service first, as `serve` does, from the labelled sets shipped with the package less
 * the set being evaluated (and what was packed from it), and the run says so.
 *
 * --db keeps the database (a second run with the same path skips the memories already stored); by default a
 * temporary database is used and removed. The run file has one line per query: {"id", "results": [dataset ids]}.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runtimeConfig } from '../src/cli/config.js';
import { shippedLabelledSets } from '../src/core/calibration/labelled-sets.js';
import { openRuntime } from '../src/runtime/runtime.js';
import { packedFrom } from './calibration/packed-sets.js';
import { loadEvalData } from './eval/dataset.js';
import { evaluate, reportMarkdown, suiteMarkdown, suiteRows, type SuiteFigures } from './eval/evaluate.js';
import { defaultSuite, evalSetOf, type EvalSet } from './eval/suite.js';
import { readOffTopic } from './eval/off-topic.js';
import { serviceRecall, storeMissing } from './eval/service-recall.js';

// A mistake such as a --data folder that does not exist is one line, not a stack trace.
process.on('uncaughtException', (error) => {
  console.error(`eval: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

function numberOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`--${name} must be a number from ${min} to ${max}`);
  return value;
}

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    limit: { type: 'string' },
    'min-score': { type: 'string' },
    out: { type: 'string' },
    db: { type: 'string' },
    'database-url': { type: 'string' },
    users: { type: 'string' },
    'off-topic': { type: 'string' },
    model: { type: 'string' },
    'model-dir': { type: 'string' },
    'embed-url': { type: 'string' },
  },
});
// The model behind an OpenAI-compatible endpoint, read as the CLI reads it (--embed-url or MEMORY_EMBED_URL, the
// key from MEMORY_EMBED_API_KEY, prefixes from MEMORY_EMBED_QUERY_PREFIX / MEMORY_EMBED_DOCUMENT_PREFIX).
const modelSettings = runtimeConfig({ model: values.model, 'model-dir': values['model-dir'], 'embed-url': values['embed-url'] }, process.env);
const limit = numberOption('limit', values.limit, 10, 1, 100);
if (!Number.isInteger(limit)) throw new Error('--limit must be an integer');
const minScore = numberOption('min-score', values['min-score'], 0, 0, 1);
const offTopic = readOffTopic(values['off-topic']);
const started = Date.now();
const seconds = (): string => ((Date.now() - started) / 1000).toFixed(1);

/** One folder through the real service: store what is missing, ask every question, report. */
/** The shipped calibration sets an evaluation of `name` must not be fitted on: that set, and what was packed from it. */
function calibrationExclude(name: string): string[] {
  return packedFrom(
    name,
    shippedLabelledSets().sets.map((s) => s.name),
  );
}

async function runSet(set: EvalSet, db: string | undefined, print: boolean): Promise<{ name: string; figures: SuiteFigures }[]> {
  const { name, dir, exhaustive } = set;
  const data = loadEvalData(dir);
  const tempDir = db === undefined ? mkdtempSync(join(tmpdir(), 'agent-memory-eval-')) : undefined;
  const dbPath = db ?? join(tempDir as string, 'eval.db');
  // The same construction as the server: store, model, embedding state, service with the model's ranker.
  // --database-url runs the same evaluation on PostgreSQL (an empty database, or one this tool filled before).
  const databaseUrl = values['database-url'] ?? undefined;
  const exclude = calibrationExclude(name);
  const runtime = await openRuntime({
    dbPath,
    databaseUrl,
    model: modelSettings.model,
    modelDir: modelSettings.modelDir,
    endpoint: modelSettings.endpoint,
    modelIdentity: process.env.MEMORY_MODEL_IDENTITY || undefined,
    calibrationExclude: exclude,
  });
  try {
    const info = await runtime.modelReady;
    console.error(`${dir}: model ${info.model} (${info.dimension} dimensions) ready after ${seconds()} s; database ${runtime.location}`);
    const calibration = await runtime.calibrated;
    if (calibration !== 'builtin') {
      console.error(
        `${name}: score calibration ${calibration} by the service for ${info.model} (shipped labelled sets${exclude.length > 0 ? ` less ${exclude.join(', ')}, the set evaluated` : ''}) after ${seconds()} s`,
      );
    }
    const stored = await storeMissing(runtime.service, data.memories, (done, total) => console.error(`  stored ${done}/${total} (${seconds()} s)`));
    console.error(`${stored} memories stored, ${data.memories.length - stored} already there (${seconds()} s)`);
    const storedAt = Date.now();
    const report = await evaluate(data, serviceRecall(runtime.service), {
      limit,
      minScore,
      offTopic,
      users: values.users?.split(','),
      offTopicUsers: values.data === undefined ? 10 : undefined,
      exhaustive,
      onProgress: (done, total) => {
        if (done % 500 === 0 || done === total) console.error(`  recall ${done}/${total} (${seconds()} s)`);
      },
    });
    if (values.out !== undefined) {
      writeFileSync(values.out, report.run.map((r) => JSON.stringify(r)).join('\n') + '\n');
      console.error(`run written to ${values.out}`);
    }
    if (print) {
      console.log(reportMarkdown(report, set.rowPerCategory));
      console.log(`\nEval time: ${seconds()} s in all, recall phase ${((Date.now() - storedAt) / 1000).toFixed(1)} s.`);
    }
    return suiteRows(set.name, report, set.rowPerCategory);
  } finally {
    await runtime.close();
    if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
  }
}

try {
  if (values.data !== undefined) {
    const set = evalSetOf(values.data);
    await runSet(set, values.db, true);
  } else {
    // The suite: every kind of memory at once, one table. --db DIR keeps one database a set (set.db) for re-runs.
    const { sets, missing } = defaultSuite();
    for (const dir of missing) console.error(`skipped (not found): ${dir}`);
    if (values.db !== undefined) mkdirSync(values.db, { recursive: true });
    const rows: { name: string; figures: SuiteFigures }[] = [];
    for (const set of sets) {
      rows.push(...(await runSet(set, values.db === undefined ? undefined : join(values.db, `${set.name}.db`), false)));
    }
    console.log(suiteMarkdown(rows));
    console.log(`\nEval time: ${seconds()} s.`);
  }
} catch (error) {
  console.error(`eval: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
