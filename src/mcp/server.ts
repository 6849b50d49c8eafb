import { ProtocolError, Server } from '@modelcontextprotocol/server';
import type { Principal } from '../access/index.ts';
import { VERSION } from '../platform/version.ts';
import { toolErrorResult } from './backend.ts';
import { auditListed, invokeTool, type McpContext, type McpTransportName, readResource } from './invoke.ts';
import { resourcesFor } from './resources.ts';
import { inputJsonSchema, toolsFor } from './tools.ts';

/** JSON-RPC code the MCP spec gives "resource not found". */
const RESOURCE_NOT_FOUND = -32002;
/** Implementation-defined server error code used for a rate-limited resource read. */
const RATE_LIMITED = -32029;
const INVALID_PARAMS = -32602;
const INVALID_REQUEST = -32600;

const INSTRUCTIONS =
  "Atrium searches the organization's connected tools. Start with query_knowledge; read a whole document with get_document " +
  'using a result id; list_connectors shows the sources (use their ids in query_knowledge.sources). execute_action changes data ' +
  'in a connected tool: only call it when the user asked for that change.';

/**
 * One MCP server (official SDK v2) per serving unit: a Streamable HTTP request (both protocol revisions are served
 * per request, see http-sessions.ts), a socket or a stdio connection; bound to the caller. The tool list is the
 * caller's: a tool it may not use is absent and calling it fails as an unknown tool. The same instance definition
 * answers 2025-era clients (after `initialize`) and 2026-07-28 clients (per-request envelope, `server/discover`).
 */
export function createMcpServer(
  ctx: McpContext,
  caller: Principal,
  transport: McpTransportName,
  opts: {
    /**
     * Re-checks the caller's key before each tool call and resource read, for transports that authenticate once
     * (stdio on local storage): false refuses the request and closes the connection.
     */
    admit?: () => Promise<boolean>;
  } = {},
): Server {
  const server = new Server(
    { name: 'atrium', title: 'Atrium knowledge service', version: VERSION },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler('tools/list', async () => {
    const tools = toolsFor(caller);
    await auditListed(ctx, caller, { method: 'tools/list', transport, count: tools.length });
    return {
      tools: tools.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: inputJsonSchema(t.name) as { type: 'object'; [k: string]: unknown },
        annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: !t.readOnly, idempotentHint: t.readOnly, openWorldHint: !t.readOnly },
      })),
    };
  });

  const admitted = async () => {
    if (!opts.admit || (await opts.admit())) return;
    setImmediate(() => void server.close());
    throw new ProtocolError(INVALID_REQUEST, 'unauthenticated: the API key is no longer valid (revoked or unknown); the connection is closed');
  };

  server.setRequestHandler('tools/call', async (request, extra) => {
    await admitted();
    const r = await invokeTool(ctx, caller, request.params.name, request.params.arguments, { transport, signal: extra.mcpReq.signal });
    if (r.kind === 'unknown_tool') throw new ProtocolError(INVALID_PARAMS, r.message);
    // Argument errors go back as tool results so the model can correct its call (MCP 2025-11-25).
    if (r.kind === 'invalid_arguments') return toolErrorResult(r.message, { error: 'invalid_arguments', problems: r.problems });
    return r.result;
  });

  server.setRequestHandler('resources/list', async () => {
    const resources = resourcesFor(caller);
    await auditListed(ctx, caller, { method: 'resources/list', transport, count: resources.length });
    return { resources: resources.map((r) => ({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })) };
  });

  // No templated resources; answered (empty) because the resources capability covers the method.
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));

  server.setRequestHandler('resources/read', async (request) => {
    await admitted();
    const r = await readResource(ctx, caller, request.params.uri, { transport });
    if (r.kind === 'unknown_resource') throw new ProtocolError(RESOURCE_NOT_FOUND, r.message, { uri: request.params.uri });
    if (r.kind === 'rate_limited') throw new ProtocolError(RATE_LIMITED, r.message, { retry_after_seconds: r.retryAfterSeconds });
    return { contents: [r.contents] };
  });

  return server;
}
