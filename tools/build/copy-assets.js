// Copies the files under src/ that tsc does not emit (data such as the ranker's lexicon and the model
// calibrations, licences, static assets) to the same place under dist/, after `tsc -p tsconfig.build.json`.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';

const ASSETS = new Set(['.json', '.txt', '.html', '.css', '.js', '.svg', '.png', '.ico', '']);
const CODE = /\.(ts|tsx|mts|cts)$/;

// The console has its own build (tools/build-console.ts), which rebuilds dist/console whole.
const OWN_BUILD = new Set([join('src', 'console')]);

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (OWN_BUILD.has(path)) continue;
    if (statSync(path).isDirectory()) walk(path);
    else if (!CODE.test(name) && ASSETS.has(extname(name))) cpSync(path, join('dist', relative('src', path)));
  }
}
walk('src');
