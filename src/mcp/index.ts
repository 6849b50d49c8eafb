export { type KnowledgeBackend, type ResourceContents, type ToolCallResult, ToolError, type ToolOutput } from './backend.ts';
export { serveConnection } from './connection.ts';
export type { McpDeps } from './deps.ts';
export { McpHttpSessions } from './http-sessions.ts';
export {
  auditListed,
  invokeTool,
  MCP_FORWARDED_BY_HEADER,
  MCP_FORWARDERS,
  MCP_LISTED,
  MCP_RESOURCES_READ,
  type McpContext,
  type McpForwarder,
  type McpInteraction,
  type McpTransportName,
  readResource,
  type ToolInvocationEvent,
} from './invoke.ts';
export { createLocalBackend } from './local-backend.ts';
export { createRemoteBackend, type RemoteServiceOptions } from './remote-backend.ts';
export { RESOURCE_SCHEME, RESOURCES, resourcesFor } from './resources.ts';
export { corsHeaders, hostAllowed, originAllowed } from './security.ts';
export { parseSelfHostedConfig, type SelfHostedConfig, type SelfHostedServer, startSelfHostedServer } from './self-hosted/index.ts';
export { createMcpServer } from './server.ts';
export { createServiceMcpContext, MCP_TOOL_INVOKED, type McpSecurity, serviceMcpSecurity } from './service-context.ts';
export { databaseSessionStore, type McpSessionStore, memorySessionStore } from './session-store.ts';
export { keyAdmission, serveStdio } from './stdio.ts';
export { restParameters, TOOLS, type ToolName, toolsFor } from './tools.ts';
export { attachWebSocketEndpoint, MCP_MAX_MESSAGE_BYTES } from './ws-endpoint.ts';
export { MCP_SUBPROTOCOL, WebSocketTransport } from './ws-transport.ts';
