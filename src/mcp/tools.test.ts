import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Permission } from '../access/index.ts';
import { findTool, inputJsonSchema, restParameters, TOOLS, toolInputs, toolsFor } from './tools.ts';

const caller = (...p: Permission[]) => ({ permissions: new Set(p) });

describe('MCP tool catalogue', () => {
  it('matches the spec table: names, parameters, required flags and defaults', () => {
    assert.deepEqual(TOOLS.map((t) => t.name), ['query_knowledge', 'get_document', 'list_connectors', 'execute_action']);
    assert.deepEqual(restParameters('query_knowledge'), {
      query: { type: 'string', required: true, description: toolInputs.query_knowledge.shape.query.description },
      sources: { type: 'string[]', description: toolInputs.query_knowledge.shape.sources.description },
      limit: { type: 'number', description: toolInputs.query_knowledge.shape.limit.description },
      includeReasoning: { type: 'boolean', description: toolInputs.query_knowledge.shape.includeReasoning.description },
      include_reasoning: { type: 'boolean', description: toolInputs.query_knowledge.shape.include_reasoning.description },
      filters: { type: 'object', description: toolInputs.query_knowledge.shape.filters.description },
      intent_signal: { type: 'object', description: toolInputs.query_knowledge.shape.intent_signal.description },
    });
    assert.deepEqual(Object.keys(restParameters('list_connectors')), []);
    const exec = restParameters('execute_action');
    assert.deepEqual([exec.connector_id?.required, exec.intent?.required, exec.context?.required, exec.context?.type], [true, true, undefined, 'object']);
    assert.equal((inputJsonSchema('query_knowledge').properties as Record<string, { default?: unknown }>).limit?.default, 5);
    assert.equal(toolInputs.query_knowledge.parse({ query: 'x' }).limit, 5);
    for (const t of TOOLS) assert.equal(inputJsonSchema(t.name).type, 'object');
  });

  it('gives each permission its tools, admin all, and hides the rest like unknown names', () => {
    assert.deepEqual(toolsFor(caller('query')).map((t) => t.name), ['query_knowledge', 'get_document']);
    assert.deepEqual(toolsFor(caller('connector:read')).map((t) => t.name), ['list_connectors']);
    assert.deepEqual(toolsFor(caller('connector:write')).map((t) => t.name), ['execute_action']);
    assert.equal(toolsFor(caller('admin')).length, 4);
    assert.equal(findTool(caller('query'), 'execute_action'), undefined);
    assert.equal(findTool(caller('query'), 'nope'), undefined);
    assert.equal(findTool(caller('query'), 'get_document')?.name, 'get_document');
    assert.equal(findTool(caller('admin'), '__proto__'), undefined);
  });

  it('rejects out-of-range and malformed arguments', () => {
    assert.equal(toolInputs.query_knowledge.safeParse({ query: '   ' }).success, false);
    assert.equal(toolInputs.query_knowledge.safeParse({ query: 'x', limit: 0 }).success, false);
    assert.equal(toolInputs.query_knowledge.safeParse({ query: 'x', limit: 2.5 }).success, false);
    assert.equal(toolInputs.query_knowledge.safeParse({ query: 'x', sources: 'github-1' }).success, false);
    assert.equal(toolInputs.query_knowledge.safeParse({ query: 'x', bogus: 1 }).success, false, 'unknown arguments are refused');
    assert.equal(toolInputs.query_knowledge.safeParse({ query: 'x', filters: { dateRange: { after: 'yesterday' } } }).success, false);
    assert.equal(toolInputs.execute_action.safeParse({ connector_id: 'a', intent: 'b', context: [1] }).success, false);
  });
});
