import type { App } from '../app.ts';
import type { AppDeps } from '../deps.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { auditRoutes } from './audit.ts';
import { connectorRoutes } from './connectors.ts';
import { documentRoutes } from './documents.ts';
import { mcpRoutes } from './mcp.ts';
import { systemRoutes } from './system.ts';

/** Every route module, registered in one place. */
export async function registerRoutes(app: App, deps: AppDeps): Promise<void> {
  await systemRoutes(app, deps);
  await apiKeyRoutes(app, deps);
  await auditRoutes(app, deps);
  await connectorRoutes(app, deps);
  await documentRoutes(app, deps);
  await mcpRoutes(app, deps);
}
