import { recordAudit, recordAuditDeferred } from '../audit/index.ts';
import type { McpDeps } from './deps.ts';
import type { McpContext } from './invoke.ts';
import { createLocalBackend } from './local-backend.ts';
import { defaultAllowedHosts, defaultAllowedOrigins } from './security.ts';

export const MCP_TOOL_INVOKED = 'mcp.tool_invoked';

/** The tool gate as the service runs it: local domain modules, the API rate limiter, audit rows. */
export function createServiceMcpContext(deps: McpDeps, opts: { countRate?: boolean } = {}): McpContext {
  return {
    backend: createLocalBackend(deps),
    log: deps.log.child({ component: 'mcp' }),
    now: () => deps.clock.now().getTime(),
    rateLimiter: opts.countRate === false ? undefined : deps.rateLimiter,
    async audit(caller, event) {
      await recordAudit(deps.db, {
        tenantId: caller.tenantId,
        action: MCP_TOOL_INVOKED,
        actorId: caller.id,
        userId: caller.userId,
        at: deps.clock.now(),
        details: { ...event },
      });
    },
    // Lists and reads are frequent: their rows are written behind (batched), like the federated query's.
    async record(caller, interaction) {
      recordAuditDeferred(
        deps.db,
        { tenantId: caller.tenantId, action: interaction.action, actorId: caller.id, userId: caller.userId, at: deps.clock.now(), details: { ...interaction.details } },
        (err, lost) => deps.log.error({ err, lost, action: interaction.action }, 'could not record MCP audit events'),
      );
    },
  };
}

export interface McpSecurity {
  readonly allowedOrigins: readonly string[];
  readonly allowedHosts: readonly string[];
}

export function serviceMcpSecurity(deps: McpDeps): McpSecurity {
  const c = deps.config;
  return {
    allowedOrigins: defaultAllowedOrigins({ publicUrl: c.publicUrl, extra: c.mcp.allowedOrigins }),
    allowedHosts: defaultAllowedHosts({ publicUrl: c.publicUrl, bindHost: c.host, extra: c.mcp.allowedHosts }),
  };
}
