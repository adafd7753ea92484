import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  license: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  optionalDependencies: Record<string, string>;
  exports: Record<string, unknown>;
  engines: { node: string };
};
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string }; optional?: boolean }> };

/** AI SDK 7's packages in the lock file (ai 6 sits under node_modules/ai6 with its own copies, for Node 18+). */
const AI_SDK_7 = ['node_modules/ai', 'node_modules/@ai-sdk/gateway', 'node_modules/@ai-sdk/provider', 'node_modules/@ai-sdk/provider-utils'];

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
    // The one exception: AI SDK 7 (a dev dependency and an optional peer, loaded only by agent-memory/ai-sdk) needs
    // Node 22 itself. The package still runs on Node 20 with AI SDK 6, which the peer range allows and the tests use.
    // And better-sqlite3 13, the SQLite driver on Node 22 and later (src/storage/sqlite/driver.ts): an optional
    // dependency, so npm skips it on Node 20, where better-sqlite3 12 (which declares Node 20) is the driver.
    expect(needsNode22.filter((name) => !AI_SDK_7.includes(name) && name !== 'node_modules/better-sqlite3-v13')).toEqual([]);
    expect(lock.packages['node_modules/better-sqlite3-v13']?.optional).toBe(true);
    expect(pkg.optionalDependencies['better-sqlite3-v13']).toMatch(/^npm:better-sqlite3@\^13\./);
    expect(lock.packages['node_modules/better-sqlite3']?.engines?.node).toMatch(/\b20\.x\b/);
  });

  it('ships agent-memory/ai-sdk with the AI SDK as an optional peer (6 or 7), never installed for everyone', () => {
    expect(pkg.exports['./ai-sdk']).toEqual({ types: './dist/ai-sdk/index.d.ts', default: './dist/ai-sdk/index.js' });
    expect(Object.keys(pkg.dependencies)).not.toContain('ai');
    expect(pkg.peerDependencies.ai).toBe('^6.0.0 || ^7.0.0');
    expect(pkg.peerDependenciesMeta.ai?.optional).toBe(true);
    // Tested against both majors: ai (7) and ai 6 under an alias.
    expect(pkg.devDependencies.ai).toMatch(/^\^7\./);
    expect(pkg.devDependencies.ai6).toMatch(/^npm:ai@\^6\./);
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
