/** The error codes of OAuth 2.1, RFC 7591, RFC 7009 and RFC 8707 that this server answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'access_denied'
  | 'unsupported_grant_type'
  | 'temporarily_unavailable';

/** A refusal of the authorization flow, in OAuth's terms; the HTTP adapter answers it as OAuth's error body. */
export class OAuthProblem extends Error {
  readonly code: OAuthErrorCode;

  constructor(code: OAuthErrorCode, message: string) {
    super(message);
    this.name = 'OAuthProblem';
    this.code = code;
  }
}
