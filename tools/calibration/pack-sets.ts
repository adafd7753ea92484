/**
 * Packs the labelled sets that `agent-memory calibrate` fits a model's score map from into the package
 * (src/core/calibration/labelled-sets.json, copied to dist/ by the build like every JSON asset):
 *
 *   npm run calibrate:pack
 *
 * - English facts: tools/eval/data/people-facts, people-facts-2 and people-facts-3 (ours), every user;
 * - English chat messages over memories in three styles: tools/eval/data/chat (ours; the check sets never ship);
 * - English dialogue: a few users of LongMemEval-S (MIT licence; ../shared/eval/longmemeval-dev), their sessions
 *   that hold an answer and the first sessions besides them, so the haystack stays small; LoCoMo is CC BY-NC and
 *   never ships;
 * - facts in every language the suite has (tools/eval/data/facts-<code>, ours);
 * - the off-topic questions (tools/eval/off-topic.txt).
 *
 * test/tools/calibration-sets.test.ts checks that the packed file matches what this tool writes from the
 * repository's data, so an edited set is packed again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packLabelledSets, PACKED_SETS_PATH } from './packed-sets.js';

const packed = packLabelledSets();
writeFileSync(PACKED_SETS_PATH, JSON.stringify(packed) + '\n');
const texts = packed.sets.reduce((n, s) => n + s.memories.length + s.queries.length, packed.offTopic.length);
console.log(`${packed.sets.length} sets, ${texts} texts written to ${join(PACKED_SETS_PATH)}`);
