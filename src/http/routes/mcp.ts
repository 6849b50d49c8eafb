import { z } from 'zod';
import { authenticateKey } from '../../access/index.ts';
import {
  attachWebSocketEndpoint,
  auditListed,
  corsHeaders,
  createServiceMcpContext,
  databaseSessionStore,
  hostAllowed,
  invokeTool,
  MCP_FORWARDED_BY_HEADER,
  MCP_FORWARDERS,
  MCP_MAX_MESSAGE_BYTES,
  type McpForwarder,
  McpHttpSessions,
  originAllowed,
  readResource,
  resourcesFor,
  restParameters,
  serviceMcpSecurity,
  toolsFor,
} from '../../mcp/index.ts';
import { AppError, Errors } from '../../platform/errors.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../../platform/json-depth.ts';
import type { App } from '../app.ts';
import { authenticateBearer, bearerToken, principalOf, withActAs } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

export const MCP_PATH = '/v1/expose/mcp';

/** The forwarding server a REST call names (`x-atrium-mcp-forwarded-by`), if one of ours. */
function forwarderOf(headers: Record<string, string | string[] | undefined>): McpForwarder | undefined {
  const value = headers[MCP_FORWARDED_BY_HEADER];
  return MCP_FORWARDERS.find((f) => f === value);
}
export const MCP_WS_PATH = '/v1/expose/mcp/ws';

const toolResult = z.object({
  content: z.array(z.object({ type: z.literal('text'), text: z.string() })),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

/** MCP exposure: Streamable HTTP and WebSocket transports, and the REST wrappers over the same tool gate. */
// Registration list (issue 27 exception to the ~100-line function rule): one registration after another.
export async function mcpRoutes(app: App, deps: AppDeps): Promise<void> {
  const security = serviceMcpSecurity(deps);
  // MCP transports count tool calls in the gate, so a limited call is a tool error, not an HTTP 429.
  const mcpCtx = createServiceMcpContext(deps);
  // The REST wrappers are counted by the HTTP hook like every other route.
  const restCtx = createServiceMcpContext(deps, { countRate: false });
  const sessions = new McpHttpSessions(mcpCtx, { idleMs: deps.config.mcp.sessionIdleMinutes * 60_000, store: databaseSessionStore(deps.db) });
  const ws = attachWebSocketEndpoint(app.server, {
    path: MCP_WS_PATH,
    ctx: mcpCtx,
    allowedOrigins: security.allowedOrigins,
    allowedHosts: security.allowedHosts,
    authenticate: async (token, client) => {
      if (client !== undefined && token !== undefined) return authenticateBearer(deps, client, token);
      return token ? authenticateKey(deps.db, token, { clock: deps.clock, log: deps.log }) : null;
    },
  });
  app.addHook('preClose', async () => {
    await Promise.all([sessions.closeAll(), ws.close()]);
  });

  // Authentication happens in the handler, not in the route hook: Origin and Host are checked first,
  // and rate limits surface as tool errors (MCP spec), so the hook must not answer 429.
  // The scoped JSON parser accepts an empty body: a DELETE may carry `Content-Type: application/json`.
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
      const raw = String(text);
      if (raw.trim() === '') return done(null, undefined);
      if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) return done(Errors.jsonTooDeep(MAX_JSON_DEPTH), undefined);
      try {
        done(null, JSON.parse(raw));
      } catch (err) {
        done(Errors.malformedJson((err as Error).message), undefined);
      }
    });
    scope.route({
      method: ['POST', 'GET', 'DELETE', 'OPTIONS'],
      url: MCP_PATH,
      // One limit for every MCP transport (the WebSocket frame limit): 413 above it.
      bodyLimit: MCP_MAX_MESSAGE_BYTES,
      config: { permission: 'public' },
      schema: { hide: true },
      handler: async (request, reply) => {
        if (!hostAllowed(request.headers.host, security.allowedHosts)) {
          throw new AppError('host_not_allowed', 403, 'the Host header does not name this service');
        }
        if (!originAllowed(request.headers.origin, security.allowedOrigins)) {
          throw new AppError('origin_not_allowed', 403, `origin ${request.headers.origin} is not allowed to use MCP`);
        }
        // A page on an allowed origin (ATRIUM_MCP_ALLOWED_ORIGINS) can use MCP from the browser: CORS on every answer,
        // including errors and the transport's own, and the preflight answered before authentication.
        for (const [k, v] of Object.entries(corsHeaders(request.headers.origin, request.method === 'OPTIONS'))) reply.raw.setHeader(k, v);
        if (request.method === 'OPTIONS') return reply.code(204).send();
        const token = bearerToken(request);
        const principal = token !== undefined ? await authenticateBearer(deps, request.ip, token) : null;
        if (!principal) {
          throw new AppError('unauthenticated', 401, 'missing or invalid API key: send Authorization: Bearer <API_KEY>', {
            headers: { 'www-authenticate': 'Bearer' },
          });
        }
        reply.hijack();
        try {
          await sessions.handle(request.raw, reply.raw, request.body, withActAs(principal, request));
        } catch (err) {
          request.log.error({ err }, 'MCP request failed');
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(500, { 'content-type': 'application/json' });
            reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
          }
        }
      },
    });
  });

  app.get(
    `${MCP_PATH}/tools`,
    {
      config: { permission: 'authenticated' },
      schema: {
        summary: 'The MCP tools this credential may call',
        description: 'Tools the key lacks the permission for are not listed.',
        tags: ['mcp'],
        response: {
          200: z.object({
            tools: z.array(
              z.object({
                name: z.string(),
                description: z.string(),
                parameters: z.record(z.string(), z.object({ type: z.string(), required: z.boolean().optional(), description: z.string().optional() })),
              }),
            ),
          }),
        },
      },
    },
    async (request) => {
      const caller = principalOf(request);
      const tools = toolsFor(caller);
      await auditListed(restCtx, caller, { method: 'tools/list', transport: 'rest', count: tools.length, forwardedBy: forwarderOf(request.headers) });
      return { tools: tools.map((t) => ({ name: t.name, description: t.description, parameters: restParameters(t.name) })) };
    },
  );

  app.post(
    `${MCP_PATH}/invoke`,
    {
      config: { permission: 'authenticated' },
      schema: {
        summary: 'Call an MCP tool over REST',
        description:
          'Answers the MCP tool result (`content`, `structuredContent`, `isError`). A tool the key may not use is 404 like an unknown one; ' +
          'invalid parameters are 400; failures of the tool itself are 200 with `isError: true`.',
        tags: ['mcp'],
        body: z.object({ tool: z.string().min(1).max(200), parameters: z.record(z.string(), z.unknown()).default({}) }).strict(),
        response: { 200: toolResult },
      },
    },
    async (request) => {
      const forwardedBy = forwarderOf(request.headers);
      const r = await invokeTool(restCtx, principalOf(request), request.body.tool, request.body.parameters, { transport: 'rest', forwardedBy });
      if (r.kind === 'unknown_tool') throw new AppError('tool_not_found', 404, r.message, { details: { tool: request.body.tool } });
      if (r.kind === 'invalid_arguments') {
        throw Errors.validation(r.message, r.problems.map((p) => ({ path: `parameters.${p.path}`, message: p.message })));
      }
      return r.result;
    },
  );

  const resourceItem = z.object({ uri: z.string(), name: z.string(), title: z.string(), description: z.string(), mimeType: z.string() });
  app.get(
    `${MCP_PATH}/resources`,
    {
      config: { permission: 'authenticated' },
      schema: { summary: 'The MCP resources this credential may read', tags: ['mcp'], response: { 200: z.object({ resources: z.array(resourceItem) }) } },
    },
    async (request) => {
      const caller = principalOf(request);
      const resources = resourcesFor(caller);
      await auditListed(restCtx, caller, { method: 'resources/list', transport: 'rest', count: resources.length, forwardedBy: forwarderOf(request.headers) });
      return { resources: resources.map((r) => ({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })) };
    },
  );

  app.get(
    `${MCP_PATH}/resources/read`,
    {
      config: { permission: 'authenticated' },
      schema: {
        summary: 'Read an MCP resource over REST',
        tags: ['mcp'],
        querystring: z.object({ uri: z.string().min(1).max(500) }),
        response: { 200: z.object({ contents: z.array(z.object({ uri: z.string(), mimeType: z.string(), text: z.string() })) }) },
      },
    },
    async (request) => {
      const r = await readResource(restCtx, principalOf(request), request.query.uri, { transport: 'rest', forwardedBy: forwarderOf(request.headers) });
      if (r.kind === 'unknown_resource') throw new AppError('resource_not_found', 404, r.message, { details: { uri: request.query.uri } });
      if (r.kind === 'rate_limited') throw Errors.rateLimited(r.retryAfterSeconds);
      return { contents: [r.contents] };
    },
  );
}
