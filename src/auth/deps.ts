import type { Config } from '../config/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseExecutor } from '../platform/db/index.ts';
import type { Logger } from '../platform/log.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { SsoConfig } from './store.ts';

/** What the SSO services use; AppDeps satisfies it. */
export interface SsoDeps {
  readonly config: Config;
  readonly db: DatabaseExecutor;
  readonly log: Logger;
  readonly clock: Clock;
  readonly secrets: SecretBox;
}

/** The acting admin, as audit records it. */
export interface Actor {
  readonly tenantId: string;
  readonly id: string;
  readonly userId: string;
}

/**
 * SSO diagnostics logging. With the tenant's debug mode on, every step logs at `info`; otherwise at `debug`.
 * Callers pass codes, names and counts only: never assertions, tokens, secrets or attribute values other than
 * the email being signed in.
 */
export function ssoLog(deps: SsoDeps, tenantId: string | null, cfg: Pick<SsoConfig, 'debugMode'> | null, fields: Record<string, unknown>, msg: string): void {
  const log = deps.log.child({ component: 'sso', tenantId });
  if (cfg?.debugMode) log.info({ sso_debug: true, ...fields }, `sso: ${msg}`);
  else log.debug(fields, `sso: ${msg}`);
}
