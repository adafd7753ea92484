import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string; devDependencies: Record<string, string>; engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };

describe('packaging', () => {
  it('ships the license that package.json names', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const text = readFileSync('LICENSE', 'utf8');
    expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(text).toContain('END OF TERMS AND CONDITIONS');
  });

  it('installs on the Node.js it declares: nothing in the lock file requires Node 22 (the MCP Inspector runs through npx)', () => {
    expect(pkg.engines.node).toBe('>=20');
    expect(Object.keys(pkg.devDependencies)).not.toContain('@modelcontextprotocol/inspector');
    const needsNode22 = Object.entries(lock.packages)
      .filter(([, entry]) => /^>=\s*2[2-9]/.test(entry.engines?.node ?? ''))
      .map(([name]) => name);
    expect(needsNode22).toEqual([]);
  });
});
