import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createTokenBucketLimiter, type Permission, type Principal } from '../access/index.ts';
import { AppError } from '../platform/errors.ts';
import { type KnowledgeBackend, ToolError } from './backend.ts';
import { invokeTool, type McpContext, type ToolInvocationEvent } from './invoke.ts';

function principal(...permissions: Permission[]): Principal {
  return { kind: 'api_key', id: 'key_1', tenantId: 't1', userId: 'ana', permissions: new Set(permissions) };
}

function harness(backend: Partial<KnowledgeBackend>, opts: { burst?: number } = {}) {
  const events: ToolInvocationEvent[] = [];
  const ctx: McpContext = {
    backend: { callTool: async () => ({ text: 'ok', structured: { ok: true } }), readResource: async () => ({ uri: '', mimeType: '', text: '' }), ...backend },
    log: pino({ level: 'silent' }),
    now: () => 1_000_000,
    rateLimiter: opts.burst === undefined ? undefined : createTokenBucketLimiter({ perMinute: 60, burst: opts.burst }),
    audit: async (_caller, e) => {
      events.push(e);
    },
  };
  return { ctx, events };
}

describe('the MCP tool gate', () => {
  it('runs a permitted tool and audits success', async () => {
    const { ctx, events } = harness({});
    const r = await invokeTool(ctx, principal('connector:read'), 'list_connectors', {}, { transport: 'rest' });
    assert.deepEqual(r, { kind: 'result', result: { content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } } });
    assert.equal(events[0]?.outcome, 'success');
    assert.equal(events[0]?.transport, 'rest');
  });

  it('treats a tool the caller lacks as unknown, before rate limiting or validation', async () => {
    const { ctx, events } = harness({}, { burst: 1 });
    const denied = await invokeTool(ctx, principal('query'), 'execute_action', { bad: true }, { transport: 'websocket' });
    const unknown = await invokeTool(ctx, principal('query'), 'nope', {}, { transport: 'websocket' });
    assert.equal(denied.kind, 'unknown_tool');
    assert.equal(unknown.kind, 'unknown_tool');
    assert.deepEqual(events.map((e) => e.outcome), ['unknown_tool', 'unknown_tool']);
    const allowed = await invokeTool(ctx, principal('query'), 'get_document', { document_id: 'd' }, { transport: 'websocket' });
    assert.equal(allowed.kind, 'result', 'the bucket was not spent on unknown tools');
  });

  it('reports validation problems with their paths', async () => {
    const { ctx, events } = harness({});
    const r = await invokeTool(ctx, principal('query'), 'query_knowledge', { query: 'x', limit: 500 }, { transport: 'stdio' });
    assert.equal(r.kind, 'invalid_arguments');
    assert.equal(r.kind === 'invalid_arguments' && r.problems[0]?.path, 'limit');
    assert.equal(events[0]?.outcome, 'invalid_arguments');
  });

  it('answers a rate-limited call with a tool error naming the wait', async () => {
    const { ctx, events } = harness({}, { burst: 1 });
    await invokeTool(ctx, principal('query'), 'get_document', { document_id: 'd' }, { transport: 'streamable_http' });
    const r = await invokeTool(ctx, principal('query'), 'get_document', { document_id: 'd' }, { transport: 'streamable_http' });
    assert.equal(r.kind, 'result');
    const result = r.kind === 'result' ? r.result : undefined;
    assert.equal(result?.isError, true);
    assert.match(result?.content[0]?.text ?? '', /retry after 1 s/);
    assert.deepEqual(result?.structuredContent, { error: 'rate_limited', retry_after_seconds: 1 });
    assert.deepEqual(events.map((e) => e.outcome), ['success', 'rate_limited']);
  });

  it('turns tool and client errors into messages, and hides server faults', async () => {
    const cases: [unknown, RegExp, string][] = [
      [new ToolError('Document x not found.'), /Document x not found/, 'error'],
      [new AppError('invalid_request', 400, 'unknown node nowhere'), /unknown node nowhere/, 'error'],
      [new ToolError('slow down', { retryAfterSeconds: 7 }), /slow down/, 'rate_limited'],
      [new Error('password=hunter2 connection refused'), /internal error/, 'error'],
    ];
    for (const [err, message, outcome] of cases) {
      const { ctx, events } = harness({
        callTool: async () => {
          throw err;
        },
      });
      const r = await invokeTool(ctx, principal('query'), 'get_document', { document_id: 'd' }, { transport: 'rest' });
      const text = r.kind === 'result' ? (r.result.content[0]?.text ?? '') : '';
      assert.match(text, message);
      assert.doesNotMatch(text, /hunter2/);
      assert.equal(events[0]?.outcome, outcome);
    }
  });

  it('still answers when the audit write fails', async () => {
    const { ctx } = harness({});
    const failing: McpContext = { ...ctx, audit: async () => Promise.reject(new Error('db down')) };
    const r = await invokeTool(failing, principal('connector:read'), 'list_connectors', {}, { transport: 'rest' });
    assert.equal(r.kind, 'result');
  });
});
