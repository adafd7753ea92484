import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { CustomOAuthError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { MemoryError } from '../../core/errors.js';
import { OAuthProblem } from '../../core/oauth/problem.js';
import type { OAuthClientRecord } from '../../core/oauth/records.js';
import type { ClientRegistration, OAuthServer } from '../../core/oauth/server.js';

/** A failure of ours in OAuth's terms, for the SDK's handlers to answer (never a bare 500 for a refusal). */
function asOAuthError(error: unknown): unknown {
  if (error instanceof OAuthProblem) return new CustomOAuthError(error.code, error.message);
  if (error instanceof MemoryError && error.code === 'unavailable') return new CustomOAuthError('temporarily_unavailable', error.message);
  return error instanceof Error ? error : new ServerError('The server failed to handle this request.');
}

async function oauthCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asOAuthError(error);
  }
}

/**
 * A client as the SDK's handlers see it. `client_secret` is the secret itself only in the registration answer; when
 * the handlers authenticate a client it is the stored SHA-256, compared with the hash of the secret sent
 * (clientCredentials in router.ts hashes it first), so no secret is ever stored.
 */
export function clientInformation(client: OAuthClientRecord, secret?: string | null): OAuthClientInformationFull {
  const shown = secret ?? client.secretHash;
  return {
    ...(client.metadata as Omit<OAuthClientInformationFull, 'client_id'>),
    redirect_uris: client.redirectUris,
    client_id: client.id,
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
    ...(shown === null || shown === undefined ? {} : { client_secret: shown, client_secret_expires_at: 0 }),
  };
}

/**
 * The SDK's OAuthServerProvider over core/oauth/server.ts, for the SDK's token, registration and revocation
 * handlers (and their client authentication: client_secret_post, and _basic through router.ts). The authorize step is ours (router.ts): its consent page needs an API key, and its redirect check is
 * stricter than the SDK's. PKCE is checked by the core (so the code is burnt by a wrong verifier too).
 */
export class ProviderAdapter implements OAuthServerProvider {
  readonly #server: OAuthServer;
  readonly skipLocalPkceValidation = true;
  readonly clientsStore: OAuthRegisteredClientsStore;

  constructor(server: OAuthServer) {
    this.#server = server;
    this.clientsStore = {
      getClient: (id) => oauthCall(async () => {
        const client = await server.client(id);
        return client ? clientInformation(client) : undefined;
      }),
      // The SDK made up an id and, for a confidential client, a secret: both are replaced by the core's.
      registerClient: (registration) =>
        oauthCall(async () => {
          const { client, secret } = await server.registerClient(registration as ClientRegistration);
          return clientInformation(client, secret);
        }),
    };
  }

  authorize(_client: OAuthClientInformationFull, _params: AuthorizationParams, _res: Response): Promise<void> {
    return Promise.reject(new ServerError('The authorize step is served by the consent page.'));
  }

  challengeForAuthorizationCode(): Promise<string> {
    return Promise.reject(new ServerError('PKCE is checked in the code exchange.'));
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    return oauthCall(() => this.#server.exchangeCode(client.client_id, code, verifier, redirectUri, resource?.href));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, token: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    return oauthCall(() => this.#server.refresh(client.client_id, token, scopes?.join(' '), resource?.href));
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    return oauthCall(async () => {
      const caller = await this.#server.verifyAccessToken(token);
      return { token, clientId: '', scopes: [...(caller.scopes ?? [])] };
    });
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return oauthCall(() => this.#server.revoke(client.client_id, request.token));
  }
}
