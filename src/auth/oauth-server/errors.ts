/** RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 8707 error codes the OAuth endpoints answer. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable';

/** An OAuth endpoint's error, answered as `{ error, error_description }` JSON (never the platform error shape). */
export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(error: OAuthErrorCode, description: string, status = 400, headers: Record<string, string> = {}) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
    this.headers = headers;
  }
  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}
