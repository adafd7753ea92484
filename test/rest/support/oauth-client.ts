/**
 * What an OAuth-capable MCP client keeps (the SDK's OAuthClientProvider, in memory), a loopback redirect listener
 * standing in for the client's callback, and the person on the consent page: Debian's Chromium, typing the key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { BrowserContext, Page } from 'playwright-core';

export class MemoryOAuthClient implements OAuthClientProvider {
  #info: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl: string;
  readonly #scope: string | undefined;

  constructor(redirectUrl: string, scope?: string) {
    this.redirectUrl = redirectUrl;
    this.#scope = scope;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Assistant',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.#scope ? { scope: this.#scope } : {}),
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.#info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    return this.#verifier;
  }
}

/** A loopback listener for the client's redirect: remembers every query it was sent to. */
export interface Callback {
  url: string;
  hits: URL[];
  close(): Promise<void>;
}

export async function startCallback(): Promise<Callback> {
  const hits: URL[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    hits.push(url);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('You can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Opens the consent page, types the key (unless denying) and presses the button; returns where the browser went. */
export async function consent(
  context: BrowserContext,
  authorizationUrl: URL | string,
  callback: Callback,
  answer: { key?: string; button: 'Allow' | 'Deny'; before?: (page: Page) => Promise<void> },
): Promise<{ redirect: URL | undefined; pageText: string; status: number | undefined }> {
  const page = await context.newPage();
  try {
    await page.goto(String(authorizationUrl));
    if (answer.key !== undefined) await page.fill('input[name="api_key"]', answer.key);
    await answer.before?.(page);
    const before = callback.hits.length;
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: answer.button, exact: true }).click(),
    ]);
    const onCallback = page.url().startsWith(callback.url);
    return {
      redirect: onCallback ? callback.hits[before] : undefined,
      pageText: await page.locator('body').innerText(),
      status: response?.status(),
    };
  } finally {
    await page.close();
  }
}
