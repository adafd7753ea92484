import { describe, expect, it } from 'vitest';
import { serveConfig } from '../../src/cli/config.js';
import { parseTrustProxy, trustProxyProblem } from '../../src/runtime/trust-proxy.js';

describe('--trust-proxy', () => {
  it('takes addresses, CIDR ranges and the named ranges, comma-separated', () => {
    expect(parseTrustProxy(' 10.0.0.1, 10.0.0.0/8 ,fd00::/8,::1, loopback')).toEqual(['10.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1', 'loopback']);
    expect(trustProxyProblem('192.168.0.0/16')).toBeUndefined();
  });

  it('refuses what is not an address, with every bad entry named', () => {
    expect(trustProxyProblem('proxy.internal')).toMatch(/not an IP address/);
    expect(trustProxyProblem('10.0.0.0/33')).toMatch(/0 to 32/);
    expect(trustProxyProblem('::/129')).toMatch(/0 to 128/);
    expect(trustProxyProblem('10.0.0.0/8/1')).toMatch(/not an IP address/);
    expect(() => parseTrustProxy('10.0.0.1, nope, 1.2.3.4/99')).toThrow(/"nope".*"1\.2\.3\.4\/99"/);
    expect(() => serveConfig({ 'trust-proxy': 'everyone' }, {})).toThrow(/--trust-proxy \(MEMORY_TRUST_PROXY\): "everyone"/);
    expect(serveConfig({}, { MEMORY_TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
    expect(serveConfig({}, {}).trustProxy).toBeUndefined();
  });
});
