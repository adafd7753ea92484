/**
 * Fits the score calibration of an embedding model from labelled data (tools/calibration/fit.ts) and writes it
 * where the runtime looks for it (core/ranking/calibration.ts):
 *
 *   npm run calibrate -- --model NAME [--model-dir DIR] [--data DIR[,DIR...]] [--max-users N] [--out FILE]
 *                           [--cache .tmp/eval-embeddings.json]   (use-lite only: vectors from the tuning cache)
 *
 * Without --data it uses the evaluation suite's sets (tools/eval/suite.ts) but the check-only ones (`checkOnly` in a set's set.json: `chat-check` and `chat-check-N`). The default output is the file beside
 * the model's own files (`<model-dir>/<model>/agent-memory-calibration.json`), or for `use-lite` the built-in
 * `src/core/ranking/calibrations/use-lite.json`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CALIBRATION_FILE } from '../src/core/ranking/calibration.js';
import { createEmbedder } from '../src/embeddings/index.js';
import type { Embedder } from '../src/embeddings/types.js';
import { fitCalibration } from './calibration/fit.js';
import { CachedEmbedder } from './eval/cached-service.js';
import { EmbedCache } from './eval/embed-cache.js';
import { firstUsers, loadEvalData } from './eval/dataset.js';
import { readOffTopic } from './eval/off-topic.js';
import { evalSetOf, tuningSets } from './eval/suite.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: 'use-lite' },
    'model-dir': { type: 'string' },
    data: { type: 'string' },
    'max-users': { type: 'string', default: '10' },
    out: { type: 'string' },
    cache: { type: 'string' },
  },
});


try {
  const model = values.model;
  const out =
    values.out ??
    (values['model-dir'] !== undefined
      ? join(values['model-dir'], model, CALIBRATION_FILE)
      : model === 'use-lite'
        ? 'src/core/ranking/calibrations/use-lite.json'
        : undefined);
  if (out === undefined) throw new Error('--out FILE is required for a model without --model-dir.');
  const maxUsers = Number(values['max-users']);
  if (!Number.isInteger(maxUsers) || maxUsers < 1) throw new Error('--max-users must be a positive integer.');
  const sets = (values.data === undefined ? tuningSets() : values.data.split(',').map((d) => evalSetOf(d))).map((set) => ({
    name: set.name,
    data: firstUsers(loadEvalData(set.dir), maxUsers),
    exhaustive: set.exhaustive,
  }));
  if (values.cache !== undefined && model !== 'use-lite') throw new Error('--cache holds use-lite vectors only.');
  const embedder: Embedder =
    values.cache !== undefined ? new CachedEmbedder(new EmbedCache(values.cache)) : createEmbedder({ model, modelDir: values['model-dir'] });
  try {
    const calibration = await fitCalibration({ embedder, sets, offTopic: readOffTopic(), onProgress: (m) => console.error(m) });
    // The command that made the file, so that the next fit can be compared with it.
    const command = ['npm run calibrate --', ...process.argv.slice(2)].join(' ');
    writeFileSync(out, JSON.stringify({ ...calibration, fittedOn: `${command}: ${calibration.fittedOn}` }, null, 2) + '\n');
    console.log(`calibration of ${model} written to ${out}`);
  } finally {
    await embedder.close();
  }
} catch (error) {
  console.error(`calibrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
