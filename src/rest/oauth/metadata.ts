import { SCOPES } from '../../core/scopes.js';

/** Where the authorization server's endpoints live under the public URL. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  consent: '/oauth/consent',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
} as const;

/** The public URL's pieces: the issuer, and the resource identifiers of /mcp and of the server as a whole (/v1). */
export interface PublicUrls {
  issuer: string;
  mcpResource: string;
  rootResource: string;
}

export function publicUrls(publicUrl: URL): PublicUrls {
  return { issuer: publicUrl.origin, mcpResource: `${publicUrl.origin}/mcp`, rootResource: `${publicUrl.origin}/` };
}

/** RFC 8414 authorization server metadata. PKCE (S256) for every client, public or confidential. */
export function authorizationServerMetadata(urls: PublicUrls): Record<string, unknown> {
  const at = (path: string) => `${urls.issuer}${path}`;
  return {
    issuer: urls.issuer,
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    registration_endpoint: at(OAUTH_PATHS.register),
    revocation_endpoint: at(OAUTH_PATHS.revoke),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: false,
  };
}

/** RFC 9728 protected resource metadata for `resource`. */
export function protectedResourceMetadata(urls: PublicUrls, resource: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [urls.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'agent-memory',
  };
}

/** Where a resource's metadata is published: the path-suffixed form for /mcp (RFC 9728 3.1), the root for the rest. */
export function resourceMetadataUrl(urls: PublicUrls, resource: 'mcp' | 'root'): string {
  return `${urls.issuer}/.well-known/oauth-protected-resource${resource === 'mcp' ? '/mcp' : ''}`;
}
