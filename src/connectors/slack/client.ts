import type { WebClient } from '@slack/web-api';
import { type SourceContext, VendorAuthError, VendorRateLimitedError } from '../kit/index.ts';
import type { SlackCredentials, SlackSettings } from './schemas.ts';

type Ctx = SourceContext<SlackCredentials, SlackSettings>;

const AUTH_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'missing_scope']);

type SlackSdk = typeof import('@slack/web-api');
let sdk: Promise<SlackSdk> | undefined;
/** The SDK, loaded on the first Slack call rather than at every start (issue 29). */
function slackSdk(): Promise<SlackSdk> {
  sdk ??= import('@slack/web-api');
  sdk.catch(() => {
    sdk = undefined;
  });
  return sdk;
}

/** The official WebClient pointed at the vendor (or a fake): our engine owns retries and rate limiting. */
function client(ctx: Ctx, { WebClient, LogLevel }: SlackSdk): WebClient {
  return new WebClient(ctx.credentials.token ?? ctx.credentials.access_token, {
    slackApiUrl: ctx.apiBaseUrl ? `${ctx.apiBaseUrl.replace(/\/$/, '')}/api/` : undefined,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
    timeout: 30_000,
  });
}

/** Calls one Web API method behind the connector's token bucket, mapping Slack's errors to the engine's. */
export async function slackCall<T>(ctx: Ctx, method: string, args: Record<string, unknown>): Promise<T> {
  const slack = await slackSdk();
  const { ErrorCode } = slack;
  await ctx.acquire();
  try {
    return (await client(ctx, slack).apiCall(method, args)) as T;
  } catch (err) {
    const e = err as { code?: string; retryAfter?: number; data?: { error?: string; needed?: string } };
    if (e.code === ErrorCode.RateLimitedError) throw new VendorRateLimitedError('Slack rate limit', typeof e.retryAfter === 'number' ? e.retryAfter * 1000 : null);
    const slackError = e.data?.error;
    if (e.code === ErrorCode.PlatformError && slackError && AUTH_ERRORS.has(slackError)) {
      throw new VendorAuthError(`Slack answered ${slackError}${e.data?.needed ? ` (needs ${e.data.needed})` : ''}: use a bot token with channels:history, channels:read and users:read`);
    }
    throw err;
  }
}
