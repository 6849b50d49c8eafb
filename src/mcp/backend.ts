import type { Principal } from '../access/index.ts';
import type { ResourceName } from './resources.ts';
import type { ToolArgs, ToolName } from './tools.ts';

/** What a tool produced: text for the model and the same data as structured content. */
export interface ToolOutput {
  readonly text: string;
  readonly structured: Record<string, unknown>;
  /** The tool ran but its outcome is a failure the model must see (e.g. a connector action that failed). */
  readonly isError?: boolean;
}

/** The MCP `CallToolResult` as every surface (MCP transports, REST invoke) returns it. */
export interface ToolCallResult {
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly [key: string]: unknown;
}

export interface ResourceContents {
  readonly uri: string;
  readonly mimeType: string;
  readonly text: string;
}

/**
 * Where tools run. In the service it is the local domain modules; in the self-hosted server it is an
 * Atrium service reached over its REST API. A failure the model can act on is thrown as `ToolError`.
 */
export interface KnowledgeBackend {
  callTool<N extends ToolName>(caller: Principal, name: N, args: ToolArgs<N>, signal?: AbortSignal): Promise<ToolOutput>;
  readResource(caller: Principal, name: ResourceName): Promise<ResourceContents>;
  /**
   * Optional: a call to a tool the caller lacks (or that does not exist), for backends whose audit trail
   * lives elsewhere (the forwarding stdio server tells the service, which audits it as `unknown_tool`).
   */
  reportUnknownTool?(caller: Principal, name: string): Promise<void>;
}

/** An expected tool failure: its message reaches the model as an `isError` result. */
export class ToolError extends Error {
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, opts: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'ToolError';
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export function toolErrorResult(message: string, extra: Record<string, unknown> = {}): ToolCallResult {
  return { content: [{ type: 'text', text: message }], isError: true, ...(Object.keys(extra).length ? { structuredContent: extra } : {}) };
}
