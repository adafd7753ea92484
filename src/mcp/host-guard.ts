import type { Request, Response } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/** The hostnames to accept when the server listens on a loopback address; undefined for any other address. */
export function loopbackHostnames(listenHost: string): string[] | undefined {
  return LOOPBACK_NAMES.includes(listenHost) ? ['localhost', '127.0.0.1', '[::1]'] : undefined;
}

/**
 * The DNS-rebinding guard of a server on loopback: the Host header must name one of `hostnames` (the SDK's own
 * check, port-agnostic), and so must the Origin header when a browser sends one. Answers 403 itself and returns
 * false when the request is refused.
 */
export function rebindingGuard(hostnames: readonly string[]): (req: Request, res: Response) => boolean {
  const checkHost = hostHeaderValidation([...hostnames]);
  return (req, res) => {
    let passed = false;
    checkHost(req, res, () => (passed = true));
    if (!passed) return false;
    const origin = req.get('origin');
    if (origin === undefined) return true; // not a browser
    const hostname = originHostname(origin);
    if (hostname !== undefined && hostnames.includes(hostname)) return true;
    res.status(403).json({ jsonrpc: '2.0', error: { code: -32000, message: `Invalid Origin header: ${origin}` }, id: null });
    return false;
  };
}

function originHostname(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}
