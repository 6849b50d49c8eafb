import type { FastifyRequest } from 'fastify';
import { type ResolvedView, resolveView } from '../identity/index.ts';
import { principalOf } from './auth.ts';
import type { AppDeps } from './deps.ts';

/**
 * Whose documents this request reads: `X-Atrium-Act-As` (act_as credentials; carried as `principal.actAs`),
 * `?bypass_acl=true` (admins, audited), the federated query's `user_id`, else the credential's own person or a
 * service view (identity/view.ts).
 */
export async function readerView(deps: AppDeps, request: FastifyRequest, extra: { federateUserId?: string; forwardedFor?: string } = {}): Promise<ResolvedView> {
  const principal = principalOf(request);
  const query = (request.query ?? {}) as Record<string, unknown>;
  const bypass = query.bypass_acl === 'true' || query.bypass_acl === true;
  return resolveView(deps, principal, { actAs: principal.actAs, bypass, surface: `${request.method} ${request.routeOptions.url ?? ''}`, ...extra });
}
