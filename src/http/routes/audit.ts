import { z } from 'zod';
import { queryAudit } from '../../audit/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const auditEvent = z
  .object({
    id: z.string(),
    event_type: z.string(),
    action: z.string(),
    tenant_id: z.string(),
    actor_id: z.string().nullable(),
    user_id: z.string().nullable(),
    timestamp: z.string(),
    details: z.record(z.string(), z.unknown()),
  })
  .catchall(z.unknown());

export async function auditRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/audit',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Read audit events, newest first',
        description: 'Filter by exact `action`, or by prefix with a trailing `*` (`auth.sso*`, `apikey*`). Page with `cursor` = the previous `next_cursor`.',
        tags: ['audit'],
        querystring: z.object({
          action: z.string().max(200).regex(/^[\w.:-]*\*?$/, 'letters, digits, . : - _ and an optional trailing *').optional(),
          since: z.iso.datetime({ offset: true }).optional(),
          until: z.iso.datetime({ offset: true }).optional(),
          limit: z.coerce.number().int().min(1).max(1000).default(100),
          cursor: z.string().regex(/^\d+$/).optional(),
        }),
        response: { 200: z.object({ events: z.array(auditEvent), next_cursor: z.string().nullable() }) },
      },
    },
    async (request) => {
      const q = request.query;
      return queryAudit(deps.db, {
        tenantId: principalOf(request).tenantId,
        action: q.action || undefined,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
        cursor: q.cursor,
        limit: q.limit,
      });
    },
  );
}
