import { OAuthProblem } from './problem.js';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Schemes that must never be a redirect: they run or read something in the browser instead of reaching a client. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:']);

/**
 * Which redirect URIs a client may register: https anywhere; http only to a loopback address (RFC 8252 7.3); a
 * private-use scheme of a native app (RFC 8252 7.1, `com.example.app:/cb`). No fragment, no credentials.
 */
export function checkRedirectUri(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OAuthProblem('invalid_redirect_uri', `"${raw}" is not an absolute URL.`);
  }
  if (url.hash !== '' || raw.includes('#')) throw new OAuthProblem('invalid_redirect_uri', 'A redirect URI must not have a fragment.');
  if (url.username !== '' || url.password !== '') throw new OAuthProblem('invalid_redirect_uri', 'A redirect URI must not carry credentials.');
  if (FORBIDDEN_SCHEMES.has(url.protocol)) throw new OAuthProblem('invalid_redirect_uri', `A redirect URI cannot use ${url.protocol}`);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    throw new OAuthProblem('invalid_redirect_uri', 'An http redirect URI must be on a loopback address (127.0.0.1 or [::1]); use https.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:' && !url.protocol.slice(0, -1).includes('.')) {
    throw new OAuthProblem('invalid_redirect_uri', 'A native app redirect must use a private-use scheme in reverse domain form (RFC 8252).');
  }
  return raw;
}

/**
 * Whether `requested` is one of the client's registered redirect URIs: exactly, except that a loopback http
 * redirect may name any port (RFC 8252 7.3: native apps listen on an ephemeral one).
 */
export function redirectRegistered(requested: string, registered: readonly string[]): boolean {
  return registered.some((r) => r === requested || loopbackMatch(requested, r));
}

function loopbackMatch(requested: string, registered: string): boolean {
  let a: URL;
  let b: URL;
  try {
    a = new URL(requested);
    b = new URL(registered);
  } catch {
    return false;
  }
  return (
    a.protocol === 'http:' &&
    b.protocol === 'http:' &&
    (a.hostname === '127.0.0.1' || a.hostname === '[::1]') &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    a.username === '' &&
    a.password === '' &&
    a.hash === ''
  );
}
