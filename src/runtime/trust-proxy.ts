import { isIP } from 'node:net';

/**
 * `--trust-proxy`: the addresses of the reverse proxies in front of the server (the README's TLS proxy). Only when a
 * request's peer is one of them is the client's address read from X-Forwarded-For (the rightmost address that is
 * not a trusted proxy); from anyone else the header is ignored, so a client cannot pick the address its rate limit is
 * charged to. Without the setting every request is charged to its peer address.
 *
 * Entries: an IPv4 or IPv6 address, a CIDR range (10.0.0.0/8, fd00::/8), or Express's names `loopback`,
 * `linklocal` and `uniquelocal`. Express (proxy-addr) does the reading; this only checks the list up front, so a
 * typo is a clear error at start and not a TypeError on the first request.
 */
export const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'] as const;

/** The problem with one entry, or undefined when it is valid. */
export function trustProxyProblem(entry: string): string | undefined {
  if ((TRUST_PROXY_NAMES as readonly string[]).includes(entry)) return undefined;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return `"${entry}" is not an IP address, a CIDR range or one of ${TRUST_PROXY_NAMES.join(', ')}.`;
  if (prefix === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `"${entry}": the prefix length must be 0 to ${max}.`;
  return undefined;
}

/** Splits and checks a comma-separated list; throws with every bad entry named. */
export function parseTrustProxy(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const problems = entries.map(trustProxyProblem).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new Error(problems.join(' '));
  return entries;
}
