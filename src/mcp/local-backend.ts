import type { Principal } from '../access/index.ts';
import { listConnectors } from '../connectors/index.ts';
import type { AppDeps } from '../http/deps.ts';
import { type KnowledgeBackend, type ResourceContents, type ToolOutput, ToolError } from './backend.ts';
import { formatConnectors, formatDocument, formatQueryAnswer, type QueryAnswer } from './format.ts';
import { recentDocuments } from './recent.ts';
import { RESOURCES, type ResourceName } from './resources.ts';
import type { ToolArgs, ToolName } from './tools.ts';

/** Tools served by this process's own domain modules (the service, and `atrium mcp --stdio` on local storage). */
export function createLocalBackend(deps: AppDeps): KnowledgeBackend {
  const tools: { [N in ToolName]: (caller: Principal, args: ToolArgs<N>, signal?: AbortSignal) => Promise<ToolOutput> } = {
    async query_knowledge(_caller, _args) {
      const answer: QueryAnswer | null = null;
      if (!answer) throw new ToolError('query_knowledge is not available: this Atrium build has no search index yet.');
      return formatQueryAnswer(answer);
    },
    async get_document(_caller, args) {
      throw new ToolError(`Document '${args.document_id}' not found.`);
    },
    async list_connectors(caller) {
      return formatConnectors(await listConnectors(deps.db, caller.tenantId));
    },
    async execute_action(caller, args) {
      const known = (await listConnectors(deps.db, caller.tenantId)).some((c) => c.connector_id === args.connector_id);
      if (!known) throw new ToolError(`Connector '${args.connector_id}' not found: call list_connectors for the available ids.`);
      throw new ToolError(`Connector '${args.connector_id}' has no actions: actions are not available in this Atrium build.`);
    },
  };
  void formatDocument;

  return {
    callTool(caller, name, args, signal) {
      const run = tools[name] as (caller: Principal, args: unknown, signal?: AbortSignal) => Promise<ToolOutput>;
      return run(caller, args, signal);
    },
    async readResource(caller, name): Promise<ResourceContents> {
      const def = RESOURCES.find((r) => r.name === name)!;
      const body =
        name === 'connectors'
          ? { connectors: await listConnectors(deps.db, caller.tenantId) }
          : { documents: await recentDocuments(deps.db, caller.tenantId, 20) };
      return { uri: def.uri, mimeType: def.mimeType, text: JSON.stringify(body, null, 2) };
    },
  };
}

export type { ResourceName };
