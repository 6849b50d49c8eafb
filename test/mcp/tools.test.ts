import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Permission } from '../../src/access/index.ts';
import { upsertDocuments } from '../../src/documents/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addConnector } from './support.ts';

const TOOL_PERMISSION: Record<string, Permission> = {
  query_knowledge: 'query',
  get_document: 'query',
  list_connectors: 'connector:read',
  execute_action: 'connector:write',
};
const ARGS: Record<string, Record<string, unknown>> = {
  query_knowledge: { query: 'rotation' },
  get_document: { document_id: 'doc_missing' },
  list_connectors: {},
  execute_action: { connector_id: 'github-abc123', intent: 'close issue 4' },
};

describe('MCP tools through the REST wrappers', () => {
  let t: TestApp;
  let docId: string;
  before(async () => {
    t = await createTestApp();
    await addConnector(t, 'github-abc123');
    await addConnector(t, 'notion-xyz789', 'default', 'notion');
    const r = await upsertDocuments(t.deps, {
      tenantId: 'default',
      connectorId: 'notion-xyz789',
      documents: [
        {
          external_id: 'page-1',
          title: 'Payments on-call rotation',
          content: 'The payments team runs a weekly on-call rotation. Escalate to the incident commander after 15 minutes.',
          url: 'https://notion.example/page-1',
          author: 'ana@example.com',
          updated_at: '2026-11-20T10:00:00Z',
        },
        { external_id: 'page-2', title: 'Lunch menu', content: 'Tacos on Tuesday, pasta on Thursday.' },
      ],
    });
    docId = r.documents.find((d) => d.external_id === 'page-1')!.id;
  });
  after(() => t.close());

  it('lists exactly the tools each permission grants, in the spec shape', async () => {
    for (const perms of [['query'], ['connector:read'], ['connector:write'], ['admin'], ['query', 'connector:write']] as Permission[][]) {
      const k = await t.keyWith(perms);
      const res = await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/tools', headers: { authorization: k.authorization } });
      assert.equal(res.statusCode, 200);
      const names = res.json().tools.map((x: { name: string }) => x.name);
      const expected = Object.keys(TOOL_PERMISSION).filter((n) => perms.includes('admin') || perms.includes(TOOL_PERMISSION[n]!));
      assert.deepEqual(names, expected, `tools for ${perms.join('+')}`);
    }
    const all = (await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/tools', headers: t.admin })).json().tools;
    const q = all.find((x: { name: string }) => x.name === 'query_knowledge');
    assert.deepEqual(
      Object.fromEntries(Object.entries(q.parameters).map(([k, v]) => [k, { type: (v as { type: string }).type, required: (v as { required?: boolean }).required }])),
      {
        query: { type: 'string', required: true },
        sources: { type: 'string[]', required: undefined },
        limit: { type: 'number', required: undefined },
        // The federated query's client-side options, all optional.
        includeReasoning: { type: 'boolean', required: undefined },
        include_reasoning: { type: 'boolean', required: undefined },
        filters: { type: 'object', required: undefined },
        intent_signal: { type: 'object', required: undefined },
      },
    );
    assert.deepEqual(all.find((x: { name: string }) => x.name === 'list_connectors').parameters, {});
    const exec = all.find((x: { name: string }) => x.name === 'execute_action').parameters;
    assert.equal(exec.context.type, 'object');
    assert.equal(exec.context.required, undefined);
  });

  it('enforces the permission matrix on invoke: each permission × each tool', async () => {
    for (const perm of ['query', 'connector:read', 'connector:write'] as Permission[]) {
      const k = await t.keyWith([perm]);
      for (const tool of Object.keys(TOOL_PERMISSION)) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/expose/mcp/invoke',
          headers: { authorization: k.authorization },
          payload: { tool, parameters: ARGS[tool] },
        });
        if (TOOL_PERMISSION[tool] === perm) {
          assert.equal(res.statusCode, 200, `${perm} may call ${tool}: ${res.body}`);
          assert.ok(Array.isArray(res.json().content));
        } else {
          assert.equal(res.statusCode, 404, `${perm} may not call ${tool}`);
          const unknown = await t.app.inject({
            method: 'POST',
            url: '/v1/expose/mcp/invoke',
            headers: { authorization: k.authorization },
            payload: { tool: 'no_such_tool', parameters: {} },
          });
          assert.equal(res.json().error.code, unknown.json().error.code);
          assert.equal(res.json().error.message.replace(tool, 'X'), unknown.json().error.message.replace('no_such_tool', 'X'));
        }
      }
    }
  });

  it('searches, then reads the full document', async () => {
    const k = await t.keyWith(['query']);
    const headers = { authorization: k.authorization };
    const q = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers, payload: { tool: 'query_knowledge', parameters: { query: 'on-call rotation' } } });
    assert.equal(q.statusCode, 200);
    const body = q.json();
    assert.notEqual(body.isError, true);
    assert.equal(body.structuredContent.items[0].id, docId);
    assert.ok(body.structuredContent.items.length <= 5);
    // The federated query's response, run for the key's user.
    assert.match(body.structuredContent.query_hash, /^sha256:[0-9a-f]{64}$/);
    assert.ok(Array.isArray(body.structuredContent.nodes_consulted));
    assert.equal(typeof body.structuredContent.damping_active, 'boolean');
    assert.equal(body.structuredContent.items[0].source_node, 'notion-xyz789');
    assert.match(body.content[0].text, /Payments on-call rotation/);
    assert.match(body.content[0].text, new RegExp(docId));

    const scoped = await t.app.inject({
      method: 'POST',
      url: '/v1/expose/mcp/invoke',
      headers,
      payload: { tool: 'query_knowledge', parameters: { query: 'on-call rotation', sources: ['github-abc123'], limit: 1 } },
    });
    assert.deepEqual(scoped.json().structuredContent.items, []);
    const unknownSource = await t.app.inject({
      method: 'POST',
      url: '/v1/expose/mcp/invoke',
      headers,
      payload: { tool: 'query_knowledge', parameters: { query: 'rotation', sources: ['nowhere-000'] } },
    });
    assert.equal(unknownSource.statusCode, 200);
    assert.equal(unknownSource.json().isError, true, unknownSource.body);
    assert.match(unknownSource.json().content[0].text, /nowhere-000/);

    const d = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers, payload: { tool: 'get_document', parameters: { document_id: docId } } });
    const doc = d.json().structuredContent.document;
    assert.equal(doc.title, 'Payments on-call rotation');
    assert.equal(doc.source_node, 'notion-xyz789');
    assert.equal(doc.url, 'https://notion.example/page-1');
    assert.equal(doc.author, 'ana@example.com');
    assert.equal(doc.updated_at, '2026-11-20T10:00:00.000Z');
    assert.ok(doc.content.includes('incident commander'));
    assert.equal(doc.tenant_id, undefined);

    const other = await t.keyWith(['query'], 'tenant-b');
    const cross = await t.app.inject({
      method: 'POST',
      url: '/v1/expose/mcp/invoke',
      headers: { authorization: other.authorization },
      payload: { tool: 'get_document', parameters: { document_id: docId } },
    });
    assert.equal(cross.json().isError, true, 'another tenant cannot read the document');
    const recent = await t.app.inject({ method: 'GET', url: `/v1/expose/mcp/resources/read?uri=${encodeURIComponent('atrium://recent')}`, headers });
    assert.equal(recent.statusCode, 200);
    const docs = JSON.parse(recent.json().contents[0].text).documents;
    assert.equal(docs.length, 2);
    assert.ok(docs.some((x: { document_id: string }) => x.document_id === docId));
  });

  it('passes the client-side options on: filters, includeReasoning and intent_signal, with errors in the tool terms', async () => {
    const k = await t.keyWith(['query']);
    const invoke = async (parameters: Record<string, unknown>) =>
      (await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers: { authorization: k.authorization }, payload: { tool: 'query_knowledge', parameters } })).json();
    const titles = (body: { structuredContent: { items: { metadata: { title: string } }[] } }) => body.structuredContent.items.map((i) => i.metadata.title);
    const all = await invoke({ query: 'rotation menu tacos', limit: 10 });
    assert.deepEqual(new Set(titles(all)), new Set(['Payments on-call rotation', 'Lunch menu']));
    assert.deepEqual(titles(await invoke({ query: 'rotation menu tacos', limit: 10, filters: { authors: ['ana@example.com'] } })), ['Payments on-call rotation']);
    assert.deepEqual(titles(await invoke({ query: 'rotation menu tacos', limit: 10, filters: { dateRange: { after: '2026-11-20', before: '2026-11-20' } } })), ['Payments on-call rotation']);
    assert.deepEqual(titles(await invoke({ query: 'rotation menu tacos', limit: 10, filters: { connector_type: 'slack' } })), []);
    const why = await invoke({ query: 'on-call rotation', includeReasoning: true });
    assert.equal(typeof why.structuredContent.items[0].reasoning.match, 'number');
    assert.ok(why.structuredContent.reasoning, 'the answer explains entropy, budgets and cache');
    assert.match(why.content[0].text, /why: match \d\.\d\d/);
    assert.equal(all.structuredContent.items[0].reasoning, undefined);
    const urgent = await invoke({ query: 'on-call rotation', intent_signal: { urgency: 1 }, includeReasoning: true });
    assert.equal(urgent.structuredContent.reasoning.intent.urgency, 1);
    // Bad options are tool errors naming the argument, never silently dropped.
    for (const [parameters, message] of [
      [{ query: 'x', intent_signal: { urgency: 5 } }, /intent_signal/],
      [{ query: 'x', filters: { authors: 'ana' } }, /filters/],
      [{ query: 'x', max_results: 3 }, /max_results/],
      [{ query: 'x', sources: [] }, /sources must name at least one/],
      [{ query: 'x', sources: ['nowhere-000'] }, /unknown sources: nowhere-000 \(see list_connectors\)/],
    ] as const) {
      const r = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers: { authorization: k.authorization }, payload: { tool: 'query_knowledge', parameters } });
      const text = r.statusCode === 400 ? r.json().error.message : r.json().content[0].text;
      assert.ok(r.statusCode === 400 || r.json().isError === true, JSON.stringify(parameters));
      assert.match(text, message, JSON.stringify(parameters));
      assert.doesNotMatch(text, /node_ids|body\./, 'the tool argument names');
    }
  });

  it('validates parameters (400 naming the field) and reports tool failures as isError', async () => {
    const k = await t.keyWith(['query', 'connector:write']);
    const headers = { authorization: k.authorization };
    const bad = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers, payload: { tool: 'query_knowledge', parameters: { limit: 'x' } } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_request');
    assert.match(bad.json().error.message, /query/);
    const noTool = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers, payload: { parameters: {} } });
    assert.equal(noTool.statusCode, 400);
    const missing = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers, payload: { tool: 'get_document', parameters: { document_id: 'doc_nope' } } });
    assert.equal(missing.statusCode, 200);
    assert.equal(missing.json().isError, true);
    assert.match(missing.json().content[0].text, /not found/);
    const action = await t.app.inject({
      method: 'POST',
      url: '/v1/expose/mcp/invoke',
      headers,
      payload: { tool: 'execute_action', parameters: { connector_id: 'nope-1', intent: 'do it' } },
    });
    assert.equal(action.json().isError, true);
    assert.match(action.json().content[0].text, /not found/);
    const noAuth = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', payload: { tool: 'list_connectors' } });
    assert.equal(noAuth.statusCode, 401);
  });

  it('lists and reads resources by permission', async () => {
    const reader = await t.keyWith(['connector:read']);
    const list = await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/resources', headers: { authorization: reader.authorization } });
    assert.deepEqual(list.json().resources, [
      {
        uri: 'atrium://connectors',
        name: 'connectors',
        title: 'Connected tools',
        description: list.json().resources[0].description,
        mimeType: 'application/json',
      },
    ]);
    const denied = await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/resources/read?uri=atrium://recent', headers: { authorization: reader.authorization } });
    assert.equal(denied.statusCode, 404);
    const read = await t.app.inject({ method: 'GET', url: '/v1/expose/mcp/resources/read?uri=atrium://connectors', headers: { authorization: reader.authorization } });
    const connectors = JSON.parse(read.json().contents[0].text).connectors;
    assert.deepEqual(connectors.map((c: { connector_id: string }) => c.connector_id), ['github-abc123', 'notion-xyz789']);
  });

  it('audits every invocation with tool, outcome, latency and user, readable through /v1/audit', async () => {
    const k = await t.keyWith(['connector:read']);
    await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers: { authorization: k.authorization }, payload: { tool: 'list_connectors' } });
    await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers: { authorization: k.authorization }, payload: { tool: 'get_document', parameters: { document_id: 'x' } } });
    const res = await t.app.inject({ method: 'GET', url: '/v1/audit?action=mcp.tool_invoked&limit=1000', headers: t.admin });
    assert.equal(res.statusCode, 200);
    const mine = res.json().events.filter((e: { actor_id: string }) => e.actor_id === k.id);
    assert.equal(mine.length, 2);
    const [denied, ok] = mine;
    assert.equal(ok.event_type, 'mcp.tool_invoked');
    assert.equal(ok.tool, 'list_connectors');
    assert.equal(ok.outcome, 'success');
    assert.equal(ok.transport, 'rest');
    assert.equal(typeof ok.latency_ms, 'number');
    assert.equal(ok.user_id, 'test-connector:read');
    assert.match(ok.timestamp, /^\d{4}-\d\d-\d\dT/);
    assert.equal(denied.tool, 'get_document');
    assert.equal(denied.outcome, 'unknown_tool');
  });
});
