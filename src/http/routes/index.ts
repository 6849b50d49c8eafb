import type { App } from '../app.ts';
import type { AppDeps } from '../deps.ts';
import { aiUsageRoutes } from './ai-usage.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { auditRoutes } from './audit.ts';
import { connectorIntegrationRoutes } from './connector-integrations.ts';
import { connectorRoutes } from './connectors.ts';
import { documentRoutes } from './documents.ts';
import { embeddingRoutes } from './embeddings.ts';
import { federateRoutes } from './federate.ts';
import { identityRoutes } from './identity.ts';
import { importRoutes } from './imports.ts';
import { mcpRoutes } from './mcp.ts';
import { meRoutes } from './me.ts';
import { oauthRoutes } from './oauth.ts';
import { setupRoutes } from './setup.ts';
import { ssoRoutes } from './sso.ts';
import { statusRoutes } from './status.ts';
import { systemRoutes } from './system.ts';
import { vec2vecRoutes } from './vec2vec.ts';
import { webRoutes } from './web.ts';

/** Every route module, registered in one place. */
export async function registerRoutes(app: App, deps: AppDeps): Promise<void> {
  await systemRoutes(app, deps);
  await aiUsageRoutes(app, deps);
  await apiKeyRoutes(app, deps);
  await auditRoutes(app, deps);
  await connectorRoutes(app, deps);
  await connectorIntegrationRoutes(app, deps);
  await documentRoutes(app, deps);
  await embeddingRoutes(app, deps);
  await federateRoutes(app, deps);
  await identityRoutes(app, deps);
  await importRoutes(app, deps);
  await meRoutes(app, deps);
  // Before the MCP routes: its onSend hook adds the WWW-Authenticate challenge to their 401s.
  await oauthRoutes(app, deps);
  await mcpRoutes(app, deps);
  await setupRoutes(app, deps);
  await ssoRoutes(app, deps);
  await statusRoutes(app, deps);
  await vec2vecRoutes(app, deps);
  // Last: the console's catch-all GET /* must not shadow any API route.
  await webRoutes(app, deps);
}
