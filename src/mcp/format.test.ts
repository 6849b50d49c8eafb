import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatActionResult, formatConnectors, formatDocument, formatQueryAnswer } from './format.ts';

describe('MCP result rendering', () => {
  it('renders query results with ids, sources and scores, and keeps the whole answer structured', () => {
    const answer = {
      query_hash: 'sha256:abc',
      items: [
        {
          id: 'doc_1',
          content: `Escalate   after\n15 minutes. ${'x'.repeat(700)}`,
          source_node: 'notion-1',
          relevance_score: 0.8123,
          temporal_status: 'recent',
          suppressed_by_tombstone: true,
          metadata: { title: 'On-call', url: 'https://n.example/1', updated_at: '2026-11-20T10:00:00.000Z' },
        },
      ],
    };
    const out = formatQueryAnswer(answer);
    assert.match(out.text, /^1 result\(s\):/);
    assert.match(out.text, /1\. On-call \[document_id: doc_1\] \(source notion-1, relevance 0\.81, updated 2026-11-20T10:00:00\.000Z, recent, FORGOTTEN/);
    assert.match(out.text, /https:\/\/n\.example\/1/);
    assert.match(out.text, /Escalate after 15 minutes\./);
    assert.ok(out.text.length < 1000, 'long content is cut to a snippet');
    assert.deepEqual(out.structured, answer);
    assert.match(formatQueryAnswer({ items: [] }).text, /No results/);
  });

  it('renders a document and the connector list', () => {
    const doc = formatDocument({
      id: 'doc_1',
      title: 'T',
      content: 'Body',
      url: null,
      source_node: 's',
      author: 'ana',
      created_at: null,
      updated_at: '2026-01-01T00:00:00.000Z',
      metadata: {},
    });
    assert.equal(doc.text, '# T\ndocument_id: doc_1\nsource: s\nauthor: ana\nupdated: 2026-01-01T00:00:00.000Z\n\nBody');
    assert.equal((doc.structured.document as { id: string }).id, 'doc_1');
    const c = formatConnectors([{ connector_id: 'gh-1', connector_type: 'github', display_name: 'GitHub', status: 'idle', last_sync_at: null, document_count: 3 }]);
    assert.match(c.text, /GitHub \(connector_id: gh-1, type github\): idle, 3 document\(s\), last sync never/);
    assert.equal(formatConnectors([]).text, 'No connectors are configured.');
  });

  it('renders an action result, failing when a call failed', () => {
    const ok = formatActionResult({
      connector_id: 'github-1',
      intent: 'x',
      planner: 'rules',
      dry_run: false,
      calls: [{ action: 'create_issue', parameters: { title: 'T' }, status: 'succeeded', result: { number: 2 } }],
    });
    assert.equal(ok.isError, undefined);
    assert.equal(ok.text, 'Done on github-1 (1 call(s), planned by rules):\n- create_issue({"title":"T"}): succeeded → {"number":2}');
    const failed = formatActionResult({
      connector_id: 'github-1',
      intent: 'x',
      planner: 'llm',
      dry_run: false,
      calls: [{ action: 'comment_on_issue', parameters: {}, status: 'failed', error: 'the vendor is rate limiting this connector; retry later' }],
    });
    assert.equal(failed.isError, true);
    assert.match(failed.text, /^An action on github-1 failed .*FAILED: the vendor is rate limiting/s);
    assert.equal((failed.structured.calls as unknown[]).length, 1);
  });
});
