import { performance } from 'node:perf_hooks';
import type { Principal, RateLimiter } from '../access/index.ts';
import { clientErrorFromDatabase, isAppError, unstorableText } from '../platform/errors.ts';
import type { Logger } from '../platform/log.ts';
import { type KnowledgeBackend, type ResourceContents, type ToolCallResult, ToolError, toolErrorResult } from './backend.ts';
import { findResource } from './resources.ts';
import { findTool, type ToolName, toolInputs } from './tools.ts';

export type McpTransportName = 'streamable_http' | 'websocket' | 'stdio' | 'rest';
/** Who forwarded a REST tool call for its own MCP clients (header MCP_FORWARDED_BY_HEADER). */
export type McpForwarder = 'self_hosted' | 'stdio';
export const MCP_FORWARDERS: readonly McpForwarder[] = ['self_hosted', 'stdio'];
/** Sent by the forwarding backend (remote-backend.ts): the self-hosted server, or `atrium mcp --stdio --url`. */
export const MCP_FORWARDED_BY_HEADER = 'x-atrium-mcp-forwarded-by';
export type ToolOutcome = 'success' | 'error' | 'rate_limited' | 'unknown_tool' | 'invalid_arguments';

export interface ToolInvocationEvent {
  readonly tool: string;
  readonly outcome: ToolOutcome;
  readonly latency_ms: number;
  readonly transport: McpTransportName;
  /** The call reached the service over REST from a forwarder that serves MCP clients itself. */
  readonly forwarded_by?: McpForwarder;
  readonly error?: string;
}

/** Everything the tool gate needs; the service and the self-hosted server each build one. */
export interface McpContext {
  readonly backend: KnowledgeBackend;
  readonly log: Logger;
  /** Milliseconds since the epoch (the injected clock). */
  now(): number;
  /** Absent when the caller's requests are already counted elsewhere (REST routes count in the HTTP hook). */
  readonly rateLimiter?: RateLimiter;
  /** Records `mcp.tool_invoked`; the self-hosted server leaves it to the service it forwards to. */
  audit?(caller: Principal, event: ToolInvocationEvent): Promise<void>;
  /** Records the other MCP interactions (`mcp.resources_read`, `mcp.listed`); absent on the self-hosted server too. */
  record?(caller: Principal, interaction: McpInteraction): Promise<void>;
}

/** Audit action of a resource read (`resources/read`, `GET /v1/expose/mcp/resources/read`). */
export const MCP_RESOURCES_READ = 'mcp.resources_read';
/** Audit action of a list call (`tools/list`, `resources/list` and their REST wrappers). */
export const MCP_LISTED = 'mcp.listed';

export type McpInteraction =
  | {
      readonly action: typeof MCP_LISTED;
      readonly details: { method: 'tools/list' | 'resources/list'; transport: McpTransportName; count: number; forwarded_by?: McpForwarder };
    }
  | {
      readonly action: typeof MCP_RESOURCES_READ;
      readonly details: {
        uri: string;
        outcome: 'success' | 'unknown_resource' | 'rate_limited' | 'error';
        transport: McpTransportName;
        latency_ms: number;
        forwarded_by?: McpForwarder;
        error?: string;
      };
    };

async function record(ctx: McpContext, caller: Principal, interaction: McpInteraction): Promise<void> {
  try {
    await ctx.record?.(caller, interaction);
  } catch (err) {
    ctx.log.error({ err, action: interaction.action }, 'could not record an MCP audit event');
  }
}

/** Audits a list call (`mcp.listed`); the list itself is the caller's (tools.ts, resources.ts). */
export async function auditListed(
  ctx: McpContext,
  caller: Principal,
  details: { method: 'tools/list' | 'resources/list'; transport: McpTransportName; count: number; forwardedBy?: McpForwarder },
): Promise<void> {
  const { forwardedBy, ...rest } = details;
  await record(ctx, caller, { action: MCP_LISTED, details: { ...rest, ...(forwardedBy ? { forwarded_by: forwardedBy } : {}) } });
}

export type InvokeResult =
  | { readonly kind: 'unknown_tool'; readonly message: string }
  | { readonly kind: 'invalid_arguments'; readonly message: string; readonly problems: { path: string; message: string }[] }
  | { readonly kind: 'result'; readonly result: ToolCallResult };

export function rateKey(caller: Principal): string {
  return `${caller.kind}:${caller.id}`;
}

export function rateLimitMessage(seconds: number): string {
  return `Rate limit exceeded for this API key: retry after ${seconds} s.`;
}

/**
 * The one path every tool call takes, whatever the transport: permission (a tool the caller lacks is
 * indistinguishable from an unknown one), rate limit, argument validation, the backend call, the
 * audit event. Failures the model can act on become `isError` results, never thrown.
 */
export async function invokeTool(
  ctx: McpContext,
  caller: Principal,
  name: string,
  rawArgs: unknown,
  opts: { transport: McpTransportName; forwardedBy?: McpForwarder; signal?: AbortSignal },
): Promise<InvokeResult> {
  const started = performance.now();
  const finish = async <R extends InvokeResult>(r: R, outcome: ToolOutcome, error?: string): Promise<R> => {
    const event: ToolInvocationEvent = {
      tool: name.slice(0, 200),
      outcome,
      latency_ms: Math.max(0, Math.round(performance.now() - started)),
      transport: opts.transport,
      ...(opts.forwardedBy ? { forwarded_by: opts.forwardedBy } : {}),
      ...(error ? { error: error.slice(0, 500) } : {}),
    };
    try {
      await ctx.audit?.(caller, event);
    } catch (err) {
      ctx.log.error({ err, tool: event.tool }, 'could not record mcp.tool_invoked audit event');
    }
    return r;
  };

  const tool = findTool(caller, name);
  if (!tool) {
    try {
      await ctx.backend.reportUnknownTool?.(caller, name);
    } catch (err) {
      ctx.log.warn({ err, tool: name.slice(0, 200) }, 'could not report an unknown tool call to the service');
    }
    return finish({ kind: 'unknown_tool', message: unknownToolMessage(name) }, 'unknown_tool');
  }

  if (ctx.rateLimiter) {
    const wait = ctx.rateLimiter.take(rateKey(caller), ctx.now());
    if (wait > 0) {
      const result = toolErrorResult(rateLimitMessage(wait), { error: 'rate_limited', retry_after_seconds: wait });
      return finish({ kind: 'result', result }, 'rate_limited');
    }
  }

  const parsed = toolInputs[tool.name].safeParse(rawArgs ?? {});
  // Text PostgreSQL cannot store (NUL, a lone surrogate) is refused before the tool acts, naming the argument.
  const unstorable = parsed.success ? unstorableText(parsed.data, '') : null;
  if (!parsed.success || unstorable) {
    const problems = parsed.success
      ? [{ path: unstorable?.path.slice(1) || '(arguments)', message: unstorable?.message ?? '' }]
      : parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(arguments)', message: i.message }));
    const message = `Invalid arguments for tool ${tool.name}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`;
    return finish({ kind: 'invalid_arguments', message, problems }, 'invalid_arguments');
  }

  try {
    const out = await ctx.backend.callTool(caller, tool.name as ToolName, parsed.data as never, opts.signal);
    const result: ToolCallResult = { content: [{ type: 'text', text: out.text }], structuredContent: out.structured, ...(out.isError ? { isError: true } : {}) };
    return finish({ kind: 'result', result }, out.isError ? 'error' : 'success', out.isError ? out.text : undefined);
  } catch (err) {
    const { message, retryAfter } = describeFailure(ctx, err, tool.name);
    const extra = retryAfter === undefined ? {} : { error: 'rate_limited', retry_after_seconds: retryAfter };
    return finish({ kind: 'result', result: toolErrorResult(message, extra) }, retryAfter === undefined ? 'error' : 'rate_limited', message);
  }
}

export function unknownToolMessage(name: string): string {
  return `Unknown tool: ${name.slice(0, 200)}`;
}

/** A message the model can act on; server faults are logged and reported without internals. */
function describeFailure(ctx: McpContext, err: unknown, tool: string): { message: string; retryAfter?: number } {
  const refused = clientErrorFromDatabase(err);
  if (refused) return { message: refused.message };
  if (err instanceof ToolError) return { message: err.message, retryAfter: err.retryAfterSeconds };
  if (isAppError(err) && err.status < 500) {
    const retry = (err.details as { retry_after_seconds?: number } | undefined)?.retry_after_seconds;
    return { message: err.message, retryAfter: err.status === 429 ? retry : undefined };
  }
  ctx.log.error({ err, tool }, 'mcp tool failed');
  if (isAppError(err) && err.status === 504) return { message: `${tool} timed out: ${err.message}. Try again or narrow the request.` };
  return { message: `${tool} failed because of an internal error in the service; try again later.` };
}

export type ReadResourceResult =
  | { readonly kind: 'unknown_resource'; readonly message: string }
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number; readonly message: string }
  | { readonly kind: 'contents'; readonly contents: ResourceContents };

/** Resource reads share the tool gate's permission rule and rate limit, and are audited (`mcp.resources_read`). */
export async function readResource(
  ctx: McpContext,
  caller: Principal,
  uri: string,
  opts: { transport: McpTransportName; forwardedBy?: McpForwarder },
): Promise<ReadResourceResult> {
  const started = performance.now();
  const audit = (outcome: 'success' | 'unknown_resource' | 'rate_limited' | 'error', error?: string) =>
    record(ctx, caller, {
      action: MCP_RESOURCES_READ,
      details: {
        uri: uri.slice(0, 200),
        outcome,
        transport: opts.transport,
        latency_ms: Math.max(0, Math.round(performance.now() - started)),
        ...(opts.forwardedBy ? { forwarded_by: opts.forwardedBy } : {}),
        ...(error ? { error: error.slice(0, 500) } : {}),
      },
    });
  const resource = findResource(caller, uri);
  if (!resource) {
    await audit('unknown_resource');
    return { kind: 'unknown_resource', message: `Resource ${uri.slice(0, 200)} not found` };
  }
  if (ctx.rateLimiter) {
    const wait = ctx.rateLimiter.take(rateKey(caller), ctx.now());
    if (wait > 0) {
      await audit('rate_limited');
      return { kind: 'rate_limited', retryAfterSeconds: wait, message: rateLimitMessage(wait) };
    }
  }
  try {
    const contents = await ctx.backend.readResource(caller, resource.name);
    await audit('success');
    return { kind: 'contents', contents };
  } catch (err) {
    await audit('error', err instanceof Error ? err.message : String(err));
    throw err;
  }
}
