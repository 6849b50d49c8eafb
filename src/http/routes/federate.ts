import { z } from 'zod';
import { flushAudit } from '../../audit/index.ts';
import {
  CONTEXT_TERMS_HEADER,
  CRITICAL_FIRST_HEADER,
  decodeContextTerms,
  describeRemoteNodes,
  FORWARDED_FOR_HEADER,
  federatedRequestSchema,
  federatedResponseSchema,
  federationLoop,
  federationOrigin,
  forget,
  HOP_HEADER,
  liftForget,
  listLocalSources,
  listNodesWithKeys,
  listTombstones,
  NODE_NAME,
  ORIGIN_HEADER,
  registerRemoteNode,
  removeRemoteNode,
  runFederatedQuery,
  sourceModels,
} from '../../federation/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { readerView } from '../view.ts';
import { errorBody, isoTimestamp } from '../schemas.ts';

const tombstone = z.object({
  id: z.string(),
  document_id: z.string().nullable(),
  connector_id: z.string().nullable(),
  external_id: z.string().nullable(),
  reason: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: isoTimestamp,
});

const forgetBody = z
  .object({
    document_ids: z.array(z.string().min(1).max(200)).min(1).max(1000).optional(),
    connector_id: z.string().min(1).max(200).optional(),
    external_ids: z.array(z.string().min(1).max(512)).min(1).max(1000).optional(),
    reason: z.string().max(2000).optional(),
  })
  .strict()
  .refine((b) => b.document_ids !== undefined || b.connector_id !== undefined, { message: 'give document_ids, or connector_id (with or without external_ids)' })
  .refine((b) => b.external_ids === undefined || b.connector_id !== undefined, { message: 'external_ids need connector_id', path: ['external_ids'] });

const node = z.object({
  node_id: z.string(),
  kind: z.enum(['local', 'remote']),
  name: z.string(),
  connector_type: z.string().nullable(),
  status: z.string().nullable(),
  url: z.string().nullable(),
  embedding_model: z
    .string()
    .nullable()
    .describe('local source: the model of its documents (most used first); remote node: the model it embeds queries with, as it reports it; null when unknown, not embedded yet or unreachable'),
  embedding_models: z.array(z.string()),
});

const nodeBody = z
  .object({
    name: z.string().regex(NODE_NAME, 'lowercase letters, digits, - and _, at most 63 characters'),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .refine((u) => {
        // Runs after .url() too when it failed: a string that is not a URL is already refused (400) by it.
        if (!URL.canParse(u)) return true;
        const parsed = new URL(u);
        return !parsed.search && !parsed.hash && !parsed.username && !parsed.password;
      }, 'the base URL of the instance (e.g. https://atrium.example.com): no query, fragment or credentials; the API key goes in api_key'),
    api_key: z.string().min(8).max(4096).describe('an API key of the remote instance with the query permission; stored encrypted, never returned'),
  })
  .strict();

const remoteNode = z.object({ node_id: z.string(), name: z.string(), url: z.string(), created_at: isoTimestamp });

/** A single header value (a repeated header is ignored). */
function headerValue(v: string | string[] | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The person FORWARDED_FOR_HEADER names (URI-decoded), undefined when absent or malformed. */
function forwardedFor(v: string | string[] | undefined): string | undefined {
  const raw = headerValue(v);
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function federateRoutes(app: App, deps: AppDeps): Promise<void> {
  // The federated query writes its activity rows and audit events behind the response: flush them before the store closes.
  app.addHook('onClose', async () => {
    await deps.federation?.activity.flush(deps.db);
    await flushAudit(deps.db);
  });

  for (const force of [false, true]) {
    app.post(
      force ? '/v1/federate/force' : '/v1/federate',
      {
        config: { permission: 'query' },
        schema: {
          summary: force ? 'Federated query, bypassing the cache and asking every selected node' : 'Federated query across sources and remote nodes',
          tags: ['federation'],
          body: federatedRequestSchema,
          response: { 200: federatedResponseSchema, 504: errorBody },
        },
      },
      async (request) => {
        const hop = request.headers[HOP_HEADER] === '1';
        const userId = (request.body as { user_id?: unknown } | null)?.user_id;
        // A hop names its reader only by FORWARDED_FOR_HEADER (honoured for act_as node keys); its body's user_id
        // is the origin's user and never selects a view here, so an origin's service caller cannot name a person.
        const view = await readerView(deps, request, hop ? { forwardedFor: forwardedFor(request.headers[FORWARDED_FOR_HEADER]) } : typeof userId === 'string' ? { federateUserId: userId } : {});
        return runFederatedQuery(deps, principalOf(request), request.body, {
          viewer: view.viewer,
          ...(view.kind === 'person' && view.email ? { forwardedFor: view.email } : {}),
          force,
          hop,
          criticalFirst: hop && request.headers[CRITICAL_FIRST_HEADER] === '1',
          contextTerms: hop ? decodeContextTerms(request.headers[CONTEXT_TERMS_HEADER]) : undefined,
          origin: hop ? headerValue(request.headers[ORIGIN_HEADER]) : undefined,
        });
      },
    );
  }

  app.post(
    '/v1/forget',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Forget documents: record tombstones (results stay, flagged and ranked below live ones)',
        tags: ['federation'],
        body: forgetBody,
        response: { 201: z.object({ tombstones: z.array(tombstone) }) },
      },
    },
    async (request, reply) => reply.status(201).send({ tombstones: await forget(deps.db, principalOf(request), request.body, deps.clock.now()) }),
  );

  app.get(
    '/v1/forget',
    {
      config: { permission: 'connector:write' },
      schema: { summary: 'Active tombstones', tags: ['federation'], response: { 200: z.object({ tombstones: z.array(tombstone) }) } },
    },
    async (request) => ({ tombstones: await listTombstones(deps.db, principalOf(request).tenantId) }),
  );

  app.delete(
    '/v1/forget/:id',
    {
      config: { permission: 'connector:write' },
      schema: {
        summary: 'Lift a tombstone: its documents rank as live again',
        tags: ['federation'],
        params: z.object({ id: z.string().min(1).max(200) }),
        response: { 200: tombstone.extend({ lifted_at: isoTimestamp }) },
      },
    },
    async (request) => {
      const now = deps.clock.now();
      const lifted = await liftForget(deps.db, principalOf(request), request.params.id, now);
      return { ...lifted, lifted_at: now.toISOString() };
    },
  );

  app.get(
    '/v1/nodes',
    {
      config: { permission: 'query' },
      schema: {
        summary: 'Nodes a federated query can consult: local sources (connectors) and registered remote Atrium nodes',
        tags: ['federation'],
        response: { 200: z.object({ nodes: z.array(node) }) },
      },
    },
    async (request) => {
      const tenantId = principalOf(request).tenantId;
      // Asked by another node (GET /v1/nodes of a remote, describing this one): local sources only, like the
      // federated query's one hop; describing our remotes in turn would loop when two nodes register each other.
      const hop = request.headers[HOP_HEADER] === '1';
      const [sources, models, remotes, origin] = await Promise.all([
        listLocalSources(deps.db, tenantId),
        sourceModels(deps.db, tenantId),
        hop ? Promise.resolve([]) : listNodesWithKeys(deps.db, deps.secrets, tenantId),
        federationOrigin(deps.db, tenantId),
      ]);
      // A node of ours that leads back here (registration's probe and the listing below ask this way).
      if (hop && origin && headerValue(request.headers[ORIGIN_HEADER]) === origin) throw federationLoop();
      // Each remote node reports its own models (cached a minute; an unreachable node shows null and its status).
      const infos = await describeRemoteNodes(deps, remotes, origin ?? undefined);
      return {
        nodes: [
          ...sources.map((s) => {
            const m = models.get(s.id) ?? [];
            return { node_id: s.id, kind: 'local' as const, name: s.display_name, connector_type: s.connector_type, status: s.status, url: null, embedding_model: m[0] ?? null, embedding_models: m };
          }),
          ...remotes.map((r, i) => ({
            node_id: r.name,
            kind: 'remote' as const,
            name: r.name,
            connector_type: null,
            status: infos[i]?.status ?? null,
            url: r.url,
            embedding_model: infos[i]?.embedding_model ?? null,
            embedding_models: infos[i]?.embedding_models ?? [],
          })),
        ],
      };
    },
  );

  app.post(
    '/v1/nodes',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Register a remote Atrium node to federate with',
        tags: ['federation'],
        body: nodeBody,
        response: { 201: remoteNode },
      },
    },
    async (request, reply) => {
      const created = await registerRemoteNode(deps, principalOf(request), request.body, { requestHost: request.headers.host, log: request.log });
      // The node's id to callers is its name: what GET /v1/nodes lists, node_ids accepts and source_node prefixes.
      return reply.status(201).send({ ...created, node_id: created.name });
    },
  );

  app.delete(
    '/v1/nodes/:id',
    {
      config: { permission: 'admin' },
      schema: { summary: 'Remove a remote node (by id or name)', tags: ['federation'], params: z.object({ id: z.string().min(1).max(200) }), response: { 200: z.object({ deleted: z.literal(true) }) } },
    },
    async (request) => {
      await removeRemoteNode(deps.db, principalOf(request), request.params.id);
      return { deleted: true as const };
    },
  );
}
