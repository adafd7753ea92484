import type { LanguageReport } from '../../core/calibration/calibrate.js';
import { shippedLabelledSets } from '../../core/calibration/labelled-sets.js';
import { fitAndStore } from '../../core/calibration/self-calibration.js';
import { resolveCalibration } from '../../core/ranking/calibration.js';
import type { RuntimeConfig } from '../../runtime/config.js';
import type { Output } from '../../runtime/output.js';
import { openEmbedder, openStoreOnly } from '../../runtime/runtime.js';
import { formatCount } from '../progress.js';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** `0→0, 0.625→0.7, 1.563→1` */
const knotsText = (knots: LanguageReport['knots']): string => knots.map(([x, y]) => `${x}→${y}`).join(', ');

/**
 * `agent-memory calibrate`: fits the score map of the configured model from the labelled sets that ship with the
 * package (core/calibration), decides per language whether the model's cosine or the words carry the evidence,
 * stores the result in the database for every node, and prints a row per language.
 */
export async function calibrateCommand(config: RuntimeConfig, out: Output): Promise<number> {
  const embedder = openEmbedder(config);
  const store = await openStoreOnly(config);
  try {
    const info = await embedder.ready();
    const data = shippedLabelledSets();
    const texts = data.sets.reduce((n, s) => n + s.memories.length + s.queries.length, data.offTopic.length);
    out.notice(`Calibrating "${info.model}" (${info.dimension} dimensions) on ${formatCount(texts)} texts of the shipped labelled sets...`);
    const run = await fitAndStore(embedder, store, data, (message) => out.notice(`  ${message}`));
    out.print('| language | texts | AUC | path | score map (raw→score) | time |');
    out.print('|---|---|---|---|---|---|');
    for (const l of run.languages) {
      out.print(`| ${l.language} | ${formatCount(l.texts)} | ${l.auc === undefined ? 'n/a' : l.auc.toFixed(3)} | ${l.path} | ${knotsText(l.knots)} | ${seconds(l.ms)} |`);
    }
    const c = run.calibration;
    out.print(
      `\nCosine range ${c.cosineFloor} to ${c.cosineCeiling}; the model's cosine counts for ${(c.languages ?? ['en']).includes('*') ? 'every language' : (c.languages ?? ['en']).join(', ')}, the words for the rest. Standing for typed messages ${c.standing ?? 0}. ${formatCount(run.texts)} texts embedded in ${seconds(run.ms)}.`,
    );
    const builtIn = !resolveCalibration(info.model, config.modelDir).fallback;
    out.print(
      builtIn
        ? `Stored for "${info.model}" (${info.dimension} dimensions), but this model has a built-in calibration, which stays in use.`
        : `Stored for "${info.model}" (${info.dimension} dimensions): every node of this database uses it from its next start.`,
    );
    return 0;
  } catch (error) {
    // A model that does not load, or a database that refuses the write: one line, not a stack trace.
    out.notice(`agent-memory calibrate: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await embedder.close();
    await store.close();
  }
}
