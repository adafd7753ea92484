import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  license: string;
  devDependencies: Record<string, string>;
  engines: { node: string };
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
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

  it('ships agent-memory/langgraph built to dist/langgraph, its LangGraph package an optional peer, never a dependency', () => {
    expect(pkg.exports['./langgraph']).toEqual({ types: './dist/langgraph/index.d.ts', default: './dist/langgraph/index.js' });
    const langchain = (deps: Record<string, string>) => Object.keys(deps).filter((name) => name.startsWith('@langchain/'));
    expect(langchain(pkg.dependencies)).toEqual([]);
    for (const name of langchain(pkg.peerDependencies)) expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
    expect(langchain(pkg.peerDependencies)).toContain('@langchain/langgraph-checkpoint');
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['@langchain/langgraph', '@langchain/langgraph-checkpoint']));
  });
});
