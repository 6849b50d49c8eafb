import type { Principal } from '../access/index.ts';
import { executeAction, listConnectors } from '../connectors/index.ts';
import { getDocument } from '../documents/index.ts';
import { federatedRequestSchema, type NodesField, runFederatedQuery } from '../federation/index.ts';
import { resolveView } from '../identity/index.ts';
import { isAppError } from '../platform/errors.ts';
import { type KnowledgeBackend, type ResourceContents, ToolError, type ToolOutput } from './backend.ts';
import type { McpDeps } from './deps.ts';
import { formatActionResult, formatConnectors, formatDocument, formatQueryAnswer } from './format.ts';
import { recentDocuments } from './recent.ts';
import { RESOURCES } from './resources.ts';
import type { ToolArgs, ToolName } from './tools.ts';

/** Unknown sources are named as the tool's `sources` argument, listed by list_connectors. */
const TOOL_NODES_FIELD: NodesField = { name: 'sources', path: 'sources', listedBy: 'list_connectors' };

type ToolImpl<N extends ToolName> = (caller: Principal, args: ToolArgs<N>, signal?: AbortSignal) => Promise<ToolOutput>;

/** Tools served by this process's own domain modules (the service, and `atrium mcp --stdio` on local storage). */
export function createLocalBackend(deps: McpDeps): KnowledgeBackend {
  const tools: { [N in ToolName]: ToolImpl<N> } = {
    async query_knowledge(caller, args) {
      // The federated query, as POST /v1/federate would run it for this caller (user_id = the key's user).
      // Both reasoning flags go on as given: the request schema refuses them when they contradict.
      // Whose documents: the key's person, the person an act_as key names (X-Atrium-Act-As), or public only.
      const { viewer } = await resolveView(deps, caller, { actAs: caller.actAs });
      // The request in the tool's own argument names (`limit`, `sources` are the request's aliases), so what the
      // request schema refuses (contradicting flags, two date ranges) is named as the caller wrote it.
      const request = federatedRequestSchema.safeParse({
        query: args.query,
        user_id: caller.userId,
        limit: args.limit,
        ...(args.sources ? { sources: args.sources } : {}),
        ...(args.include_reasoning !== undefined ? { include_reasoning: args.include_reasoning } : {}),
        ...(args.includeReasoning !== undefined ? { includeReasoning: args.includeReasoning } : {}),
        ...(args.filters ? { filters: args.filters } : {}),
        ...(args.intent_signal ? { intent_signal: args.intent_signal } : {}),
      });
      if (!request.success) {
        const issue = request.error.issues[0];
        throw new ToolError(`invalid ${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}`);
      }
      const answer = await runFederatedQuery(deps, caller, request.data, { viewer, nodesField: TOOL_NODES_FIELD }).catch((err: unknown) => {
        throw isAppError(err) && err.status === 400 ? new ToolError(err.message) : err;
      });
      return formatQueryAnswer(answer);
    },
    async get_document(caller, args) {
      const { viewer } = await resolveView(deps, caller, { actAs: caller.actAs });
      // A document the caller may not read is "not found", exactly like a missing one.
      const doc = await getDocument(deps.db, caller.tenantId, args.document_id, viewer);
      if (!doc) throw new ToolError(`Document '${args.document_id}' not found: use an id from query_knowledge results.`);
      const { tenant_id: _t, acl: _a, content_hash: _h, ...view } = doc;
      return formatDocument(view);
    },
    async list_connectors(caller) {
      // Document counts of the caller's view only.
      return formatConnectors(await listConnectors(deps.db, caller.tenantId, (await resolveView(deps, caller, { actAs: caller.actAs })).viewer));
    },
    async execute_action(caller, args) {
      // The connector's own execute path (POST /v1/connectors/{id}/execute): plans, validates, runs and audits.
      const response = await executeAction(deps, caller, args.connector_id, { intent: args.intent, context: args.context, dry_run: false });
      return formatActionResult(response);
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
          ? { connectors: await listConnectors(deps.db, caller.tenantId, (await resolveView(deps, caller, { actAs: caller.actAs })).viewer) }
          : { documents: await recentDocuments(deps.db, caller.tenantId, 20, (await resolveView(deps, caller, { actAs: caller.actAs })).viewer) };
      return { uri: def.uri, mimeType: def.mimeType, text: JSON.stringify(body, null, 2) };
    },
  };
}
