import type { Principal } from '../access/index.ts';
import { getConnector, listConnectors } from '../connectors/index.ts';
import { getDocument, type Passage, searchPassages } from '../documents/index.ts';
import type { AppDeps } from '../http/deps.ts';
import { type KnowledgeBackend, type ResourceContents, type ToolOutput, ToolError } from './backend.ts';
import { formatConnectors, formatDocument, formatQueryAnswer, type QueryAnswer, type QueryItem } from './format.ts';
import { recentDocuments } from './recent.ts';
import { RESOURCES } from './resources.ts';
import type { ToolArgs, ToolName } from './tools.ts';

type ToolImpl<N extends ToolName> = (caller: Principal, args: ToolArgs<N>, signal?: AbortSignal) => Promise<ToolOutput>;

function passageItem(p: Passage): QueryItem {
  return {
    id: p.document_id,
    chunk_id: p.chunk_id,
    title: p.title,
    url: p.url,
    content: p.content,
    source_node: p.source_node,
    relevance_score: p.fused_score,
    semantic_similarity: p.semantic_score,
    metadata: {
      document_id: p.document_id,
      connector_type: p.connector_type,
      author: p.author,
      document_type: p.document_type,
      created_at: p.created_at,
      updated_at: p.updated_at,
      ...p.metadata,
    },
  };
}

/** Tools served by this process's own domain modules (the service, and `atrium mcp --stdio` on local storage). */
export function createLocalBackend(deps: AppDeps): KnowledgeBackend {
  const tools: { [N in ToolName]: ToolImpl<N> } = {
    async query_knowledge(caller, args, signal) {
      const passages = await searchPassages(deps, { tenantId: caller.tenantId, query: args.query, sources: args.sources, limit: args.limit, signal });
      const answer: QueryAnswer = {
        items: passages.map(passageItem),
        nodes_consulted: [...new Set(passages.map((p) => p.source_node))],
      };
      return formatQueryAnswer(answer);
    },
    async get_document(caller, args) {
      const doc = await getDocument(deps.db, caller.tenantId, args.document_id);
      if (!doc) throw new ToolError(`Document '${args.document_id}' not found: use an id from query_knowledge results.`);
      const { tenant_id: _t, acl: _a, content_hash: _h, ...view } = doc;
      return formatDocument(view);
    },
    async list_connectors(caller) {
      return formatConnectors(await listConnectors(deps.db, caller.tenantId));
    },
    async execute_action(caller, args) {
      const connector = await getConnector(deps.db, caller.tenantId, args.connector_id);
      if (!connector) throw new ToolError(`Connector '${args.connector_id}' not found: call list_connectors for the available ids.`);
      throw new ToolError(`Connector '${args.connector_id}' has no actions: actions are not available in this Atrium build.`);
    },
  };

  return {
    callTool(caller, name, args, signal) {
      const run = tools[name] as ToolImpl<ToolName>;
      return run(caller, args as never, signal);
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
