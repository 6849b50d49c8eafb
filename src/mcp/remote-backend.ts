import { createAtriumClient, isErrorBody, type Outcome } from '../../packages/client/src/index.ts';
import type { Permission, Principal } from '../access/index.ts';
import { timeoutSignal } from '../platform/abort.ts';
import { type KnowledgeBackend, type ResourceContents, ToolError, type ToolOutput } from './backend.ts';
import { MCP_FORWARDED_BY_HEADER, type McpForwarder } from './invoke.ts';
import { RESOURCES } from './resources.ts';
import { TOOLS } from './tools.ts';

export interface RemoteServiceOptions {
  /** The Atrium service, e.g. `https://atrium.example.com`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  /** Named to the service on every call, so its audit tells forwarded calls from direct REST ones. */
  readonly forwardedBy?: McpForwarder;
}

/**
 * Tools forwarded to an Atrium service through its REST API (`/v1/expose/mcp/*`), for the
 * self-hosted server and `atrium mcp --stdio --url`. The service checks permissions, rate limits
 * and writes the audit events; its answers come back as tool results. The calls go through the typed client
 * generated from the service's OpenAPI document (packages/client), so paths, bodies and answers are checked.
 */
export function createRemoteBackend(opts: RemoteServiceOptions): KnowledgeBackend & { caller(): Promise<Principal> } {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const atrium = createAtriumClient({
    baseUrl: base,
    apiKey: opts.apiKey,
    fetch: opts.fetch,
    headers: { accept: 'application/json', ...(opts.forwardedBy ? { [MCP_FORWARDED_BY_HEADER]: opts.forwardedBy } : {}) },
  });

  /**
   * One call with the timeout (and the MCP request's own signal). `actAs`: the person the MCP client named at connect
   * (X-Atrium-Act-As), forwarded so the service answers their view. Answers openapi-fetch's `{ data, error, response }`.
   */
  async function call<R extends Outcome>(send: (init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<R>, signal?: AbortSignal, actAs?: string): Promise<R> {
    const signals = [timeoutSignal(timeoutMs), ...(signal ? [signal] : [])];
    try {
      return await send({ signal: AbortSignal.any(signals), headers: actAs ? { 'x-atrium-act-as': actAs } : {} });
    } catch (err) {
      const reason = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : 'it is unreachable';
      throw new ToolError(`The Atrium service at ${base} could not be reached (${reason}); try again later.`, { cause: err });
    }
  }

  function failure(res: Response, error: unknown): never {
    const message = isErrorBody(error) ? error.error.message : `HTTP ${res.status}`;
    if (res.status === 429) {
      const retry = Number(res.headers.get('retry-after') ?? '1') || 1;
      throw new ToolError(`Rate limit exceeded at the Atrium service: retry after ${retry} s.`, { retryAfterSeconds: retry });
    }
    if (res.status === 401) throw new ToolError('The Atrium service rejected this server\'s API key (401): check service_api_key / ATRIUM_API_KEY.');
    if (res.status >= 500) throw new ToolError(`The Atrium service failed (${res.status}): ${message}. Try again later.`);
    throw new ToolError(message);
  }

  return {
    async caller() {
      const { data, error, response } = await call((init) => atrium.GET('/v1/expose/mcp/tools', init));
      if (!data) {
        throw new Error(`the Atrium service at ${base} answered ${response.status} to GET /v1/expose/mcp/tools: ${isErrorBody(error) ? error.error.message : response.statusText}`);
      }
      const names = new Set(data.tools.map((t) => t.name));
      const permissions = new Set<Permission>(TOOLS.filter((t) => names.has(t.name)).map((t) => t.permission));
      // Resources follow the same permissions as the tools the key was granted.
      return { kind: 'api_key', id: 'self-hosted', tenantId: 'remote', userId: 'self-hosted', permissions };
    },

    async callTool(caller, name, args, signal): Promise<ToolOutput> {
      const { data: result, error, response } = await call((init) => atrium.POST('/v1/expose/mcp/invoke', { ...init, body: { tool: name, parameters: args } }), signal, caller.actAs);
      if (!result) return failure(response, error);
      const text = result.content.map((c) => c.text).join('\n');
      const retry = (result.structuredContent as { retry_after_seconds?: number } | undefined)?.retry_after_seconds;
      if (result.isError && retry !== undefined) throw new ToolError(text, { retryAfterSeconds: retry });
      return { text, structured: result.structuredContent ?? {}, ...(result.isError ? { isError: true } : {}) };
    },

    // The service audits every invocation; a call this process refuses as unknown is sent on so it is
    // audited there too (the service refuses it the same way).
    async reportUnknownTool(_caller, name) {
      await call((init) => atrium.POST('/v1/expose/mcp/invoke', { ...init, body: { tool: name, parameters: {} } }));
    },

    async readResource(caller, name): Promise<ResourceContents> {
      const def = RESOURCES.find((r) => r.name === name)!;
      const { data, error, response } = await call((init) => atrium.GET('/v1/expose/mcp/resources/read', { ...init, params: { query: { uri: def.uri } } }), undefined, caller.actAs);
      if (!data) return failure(response, error);
      const first = data.contents[0];
      if (!first) throw new ToolError(`the service returned no contents for ${def.uri}`);
      return first;
    },
  };
}
