import { Octokit } from '@octokit/rest';
import { rateLimitFromResponse, type SourceContext, VendorAuthError, VendorRateLimitedError } from '../kit/index.ts';
import type { GitHubCredentials, GitHubSettings } from './schemas.ts';

type Ctx = SourceContext<GitHubCredentials, GitHubSettings>;

export function githubClient(ctx: Ctx): Octokit {
  return new Octokit({
    auth: ctx.credentials.access_token,
    baseUrl: ctx.apiBaseUrl ?? 'https://api.github.com',
    request: { fetch: ctx.fetch, signal: ctx.signal },
    userAgent: 'atrium-connector',
  });
}

/**
 * Maps Octokit's errors to the engine's vendor errors: RequestError (status + response headers), and GraphqlResponseError
 * (HTTP 200 with `errors`), which is how GraphQL reports an exhausted quota (`x-ratelimit-remaining: 0`, `RATE_LIMITED`).
 */
export function mapGitHubError(err: unknown): unknown {
  const e = err as {
    status?: number;
    message?: string;
    response?: { headers?: Record<string, string | undefined> };
    headers?: Record<string, string | undefined>;
    errors?: { type?: string }[];
  };
  if (e?.status === 401) return new VendorAuthError(`GitHub answered 401 (${e.message ?? 'Bad credentials'}): the token is invalid or revoked`);
  if (Array.isArray(e?.errors)) {
    const headers = e.headers ?? {};
    if (headers['x-ratelimit-remaining'] !== '0' && !e.errors.some((x) => x?.type === 'RATE_LIMITED')) return err;
    const limited = rateLimitFromResponse(429, (name) => headers[name]);
    return new VendorRateLimitedError('vendor rate limit (GitHub GraphQL RATE_LIMITED)', limited?.retryAfterMs ?? null);
  }
  const headers = e?.response?.headers ?? {};
  return (typeof e?.status === 'number' && rateLimitFromResponse(e.status, (name) => headers[name])) || err;
}

export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw mapGitHubError(err);
  }
}
