import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../access/index.ts';
import { VERSION } from '../platform/version.ts';
import { toolErrorResult } from './backend.ts';
import { invokeTool, type McpContext, type McpTransportName, readResource } from './invoke.ts';
import { resourcesFor } from './resources.ts';
import { inputJsonSchema, toolsFor } from './tools.ts';

/** JSON-RPC code the MCP spec gives "resource not found". */
const RESOURCE_NOT_FOUND = -32002;
/** Implementation-defined server error code used for a rate-limited resource read. */
const RATE_LIMITED = -32029;

const INSTRUCTIONS =
  "Atrium searches the organization's connected tools. Start with query_knowledge; read a whole document with get_document " +
  'using a result id; list_connectors shows the sources (use their ids in query_knowledge.sources). execute_action changes data ' +
  'in a connected tool: only call it when the user asked for that change.';

/**
 * One MCP server per connection (session, socket or stdio), bound to the caller that opened it. The
 * tool list is the caller's: a tool it may not use is absent and calling it fails as an unknown tool.
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

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolsFor(caller).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputJsonSchema(t.name),
      annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: !t.readOnly, idempotentHint: t.readOnly, openWorldHint: !t.readOnly },
    })),
  }));

  const admitted = async () => {
    if (!opts.admit || (await opts.admit())) return;
    setImmediate(() => void server.close());
    throw new McpError(ErrorCode.InvalidRequest, 'unauthenticated: the API key is no longer valid (revoked or unknown); the connection is closed');
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    await admitted();
    const r = await invokeTool(ctx, caller, request.params.name, request.params.arguments, { transport, signal: extra.signal });
    if (r.kind === 'unknown_tool') throw new McpError(ErrorCode.InvalidParams, r.message);
    // Argument errors go back as tool results so the model can correct its call (MCP 2025-11-25).
    if (r.kind === 'invalid_arguments') return toolErrorResult(r.message, { error: 'invalid_arguments', problems: r.problems });
    return r.result;
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: resourcesFor(caller).map((r) => ({ uri: r.uri, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    await admitted();
    const r = await readResource(ctx, caller, request.params.uri);
    if (r.kind === 'unknown_resource') throw new McpError(RESOURCE_NOT_FOUND, r.message, { uri: request.params.uri });
    if (r.kind === 'rate_limited') throw new McpError(RATE_LIMITED, r.message, { retry_after_seconds: r.retryAfterSeconds });
    return { contents: [r.contents] };
  });

  return server;
}
