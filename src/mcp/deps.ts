import type { RateLimiter } from '../access/index.ts';
import type { ConnectorDeps } from '../connectors/index.ts';
import type { FederationDeps } from '../federation/index.ts';

/**
 * What the MCP tools need from the composed service: the federated query's and the connectors' dependencies, and
 * the API rate limiter the tool gate counts calls on. The HTTP layer's AppDeps satisfies it structurally, so mcp
 * does not import http (which mounts mcp's endpoints).
 */
export interface McpDeps extends FederationDeps, ConnectorDeps {
  readonly rateLimiter: RateLimiter;
}
