import { AUTH_METHODS } from './clients.ts';
import { MCP_SCOPE } from './tokens.ts';

/** Paths of the authorization server's endpoints (under the API's /v1). */
export const OAUTH_PATHS = {
  authorize: '/v1/oauth/authorize',
  token: '/v1/oauth/token',
  register: '/v1/oauth/register',
  revoke: '/v1/oauth/revoke',
  grants: '/v1/oauth/grants',
} as const;

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';

/** RFC 9728 metadata of the MCP endpoint `resource` (an absolute URL). */
export function protectedResourceMetadata(publicUrl: string, resource: string) {
  return {
    resource,
    authorization_servers: [publicUrl],
    bearer_methods_supported: ['header'],
    scopes_supported: [MCP_SCOPE],
    resource_name: 'Atrium MCP',
    resource_documentation: `${publicUrl}/mcp`,
  };
}

/** RFC 8414 metadata; the issuer is the public URL (no path), as MCP clients derive the metadata URL from it. */
export function authorizationServerMetadata(publicUrl: string) {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${publicUrl}${OAUTH_PATHS.revoke}`,
    scopes_supported: [MCP_SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    service_documentation: `${publicUrl}/mcp`,
  };
}

/** The `WWW-Authenticate` challenge of a 401 from the MCP endpoint (RFC 9728 §5.1; RFC 6750 §3 `error`). */
export function bearerChallenge(metadataUrl: string, error?: 'invalid_token'): string {
  return `Bearer resource_metadata="${metadataUrl}", scope="${MCP_SCOPE}"${error ? `, error="${error}"` : ''}`;
}
