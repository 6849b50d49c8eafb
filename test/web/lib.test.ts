// Unit tests of the console's pure functions (web/src/lib): no browser, no I/O.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayRange, filtersFromQuery, filtersToQuery, formatCount, formatUsd, niceTicks, pivotDaily, ruleLabel } from '../../web/src/lib/ai-usage.ts';
import { confidenceBand } from '../../web/src/lib/confidence.ts';
import { relativeTime } from '../../web/src/lib/format.ts';
import { mappingFromRows, rowsFromMapping } from '../../web/src/lib/group-mapping.ts';
import { highlightSegments, makeSnippet, queryTerms } from '../../web/src/lib/highlight.ts';
import { fieldsFromSchema, initialValues, valuesToObject } from '../../web/src/lib/json-schema-form.ts';
import { clientConfigs, mcpEndpoints } from '../../web/src/lib/mcp-config.ts';
import { parseParallelTexts } from '../../web/src/lib/parallel-texts.ts';
import { sourceUrl } from '../../web/src/lib/source-url.ts';
import { SSO_FAILED, ssoErrorMessage } from '../../web/src/lib/sso-errors.ts';
import { documentSeries, parseSyncRuns } from '../../web/src/lib/sync-history.ts';

describe('highlight', () => {
  it('keeps meaningful query terms, longest first', () => {
    assert.deepEqual(queryTerms('How do we fail over THE database? database!'), ['database', 'fail', 'over', 'do', 'we']);
    assert.deepEqual(queryTerms('  '), []);
  });

  it('marks terms at word starts, and concatenation gives the text back', () => {
    const text = 'Syncing the database: sync failed; resync later.';
    const segs = highlightSegments(text, ['sync', 'database']);
    assert.equal(segs.map((s) => s.text).join(''), text);
    assert.deepEqual(
      segs.filter((s) => s.match).map((s) => s.text),
      ['Syncing', 'database', 'sync'],
    );
    assert.deepEqual(highlightSegments('abc', ['a.c']), [{ text: 'abc', match: false }], 'regex characters are escaped');
    assert.deepEqual(highlightSegments('x', []), [{ text: 'x', match: false }]);
  });

  it('cuts a snippet around the first match at word boundaries', () => {
    const content = `${'lorem ipsum '.repeat(60)}the failover runbook says promote the replica ${'dolor sit '.repeat(60)}`;
    const snip = makeSnippet(content, ['failover'], 120);
    assert.ok(snip.includes('failover'), snip);
    assert.ok(snip.startsWith('… ') && snip.endsWith(' …'), snip);
    assert.ok(snip.length <= 126, String(snip.length));
    assert.equal(makeSnippet('short   text\n here', ['x']), 'short text here');
  });
});

describe('confidence bands', () => {
  it('follows the spec bounds', () => {
    assert.equal(confidenceBand(0.97), 'excellent');
    assert.equal(confidenceBand(0.95), 'excellent');
    assert.equal(confidenceBand(0.9), 'good');
    assert.equal(confidenceBand(0.85), 'good');
    assert.equal(confidenceBand(0.7), 'fair');
    assert.equal(confidenceBand(0.69), 'poor');
  });
});

describe('relative time', () => {
  const now = new Date('2026-01-10T12:00:00Z');
  it('names the distance in the largest sensible unit', () => {
    assert.equal(relativeTime(null, now), 'never');
    assert.equal(relativeTime('2026-01-10T11:59:58Z', now), 'just now');
    assert.equal(relativeTime('2026-01-10T11:30:00Z', now), '30 min ago');
    assert.equal(relativeTime('2026-01-09T12:00:00Z', now), '1 day ago');
    assert.equal(relativeTime('2025-11-01T12:00:00Z', now), '2 months ago');
    assert.equal(relativeTime('2026-01-10T15:00:00Z', now), 'in 3 h');
    assert.equal(relativeTime('not a date', now), 'not a date');
  });
});

describe('settings form from JSON Schema', () => {
  // The shape zod's JSON Schema output gives the connectors catalogue.
  const schema = {
    type: 'object',
    properties: {
      sync_private_repos: { default: true, type: 'boolean' },
      max_file_size_mb: { default: 10, type: 'integer', minimum: 1, maximum: 100 },
      file_extensions: { default: ['.md', '.txt'], type: 'array', items: { type: 'string' } },
      mode: { type: 'string', enum: ['fast', 'thorough'] },
      channel: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      api_key: { type: 'string' },
      nested: { type: 'object', properties: {} },
    },
    required: ['channel'],
  };

  it('makes one typed field per editable property', () => {
    const fields = fieldsFromSchema(schema);
    assert.deepEqual(
      fields.map((f) => [f.name, f.kind, f.required]),
      [
        ['sync_private_repos', 'boolean', false],
        ['max_file_size_mb', 'integer', false],
        ['file_extensions', 'string-list', false],
        ['mode', 'enum', false],
        ['channel', 'string', true],
        ['api_key', 'secret', false],
      ],
    );
    assert.deepEqual(initialValues(fields), { sync_private_repos: true, max_file_size_mb: '10', file_extensions: '.md, .txt', mode: '', channel: '', api_key: '' });
  });

  it('converts values, leaves empty optional fields to the server, and reports problems', () => {
    const fields = fieldsFromSchema(schema);
    const ok = valuesToObject(fields, { ...initialValues(fields), channel: ' general ', file_extensions: '.md,\n.rst' });
    assert.deepEqual(ok.errors, {});
    assert.deepEqual(ok.value, { sync_private_repos: true, max_file_size_mb: 10, file_extensions: ['.md', '.rst'], channel: 'general' });
    const bad = valuesToObject(fields, { ...initialValues(fields), max_file_size_mb: '0', mode: 'slow' });
    assert.deepEqual(Object.keys(bad.errors).sort(), ['channel', 'max_file_size_mb', 'mode']);
    assert.match(bad.errors.max_file_size_mb ?? '', /at least 1/);
    assert.match(valuesToObject(fields, { ...initialValues(fields), channel: 'x', max_file_size_mb: '2.5' }).errors.max_file_size_mb ?? '', /whole number/);
  });

  it('ignores what is not a schema', () => {
    assert.deepEqual(fieldsFromSchema(null), []);
    assert.deepEqual(fieldsFromSchema({ type: 'string' }), []);
  });
});

describe('sync history', () => {
  it('reads runs newest first and builds the documents series oldest first', () => {
    const run = { trigger: 'manual', updated: 0, unchanged: 0, batches: 1, rate_limited_waits: 0 } as const;
    const runs = parseSyncRuns([
      { ...run, run_id: 'r1', sync_type: 'full', status: 'completed', started_at: '2026-01-01T00:00:00Z', finished_at: '2026-01-01T00:01:00Z', added: 10, deleted: 0, error: null },
      { ...run, run_id: 'r2', sync_type: 'incremental', status: 'failed', started_at: '2026-01-02T00:00:00Z', finished_at: null, added: 3, deleted: 1, error: 'rate limited' },
    ]);
    assert.deepEqual(
      runs.map((r) => [r.id, r.added, r.deleted, r.error]),
      [
        ['r2', 3, 1, 'rate limited'],
        ['r1', 10, 0, null],
      ],
    );
    assert.deepEqual(
      documentSeries(runs).map((p) => p.documents),
      [10, 12],
    );
    assert.deepEqual(parseSyncRuns([]), []);
  });
});

describe('group mapping rows', () => {
  it('round-trips, dropping blank groups and unknown roles', () => {
    const rows = rowsFromMapping({ eng: 'member', admins: 'admin', weird: 'owner' });
    assert.deepEqual(rows, [
      { group: 'admins', role: 'admin' },
      { group: 'eng', role: 'member' },
    ]);
    assert.deepEqual(mappingFromRows([...rows, { group: '  ', role: 'viewer' }, { group: ' eng ', role: 'viewer' }]), { admins: 'admin', eng: 'viewer' });
  });
});

describe('parallel texts', () => {
  it('reads JSON arrays, JSON lines of strings and plain lines', () => {
    assert.deepEqual(parseParallelTexts('["a", " b ", 3, ""]'), ['a', 'b']);
    assert.deepEqual(parseParallelTexts('"x"\n"y, z"\n\nplain line\r\n'), ['x', 'y, z', 'plain line']);
    assert.deepEqual(parseParallelTexts('[not json\nsecond'), ['[not json', 'second']);
  });
});

describe('MCP client configurations', () => {
  it('points every configuration at this origin, with a placeholder key', () => {
    assert.deepEqual(mcpEndpoints('https://atrium.example.com/'), {
      http: 'https://atrium.example.com/v1/expose/mcp',
      ws: 'wss://atrium.example.com/v1/expose/mcp/ws',
      tools: 'https://atrium.example.com/v1/expose/mcp/tools',
    });
    const configs = clientConfigs('http://127.0.0.1:8080');
    for (const c of configs) {
      if (c.language === 'json') JSON.parse(c.text);
      assert.ok(c.text.includes('127.0.0.1:8080'), c.id);
    }
    const cursor = JSON.parse(configs.find((c) => c.id === 'cursor')?.text ?? '{}');
    assert.equal(cursor.mcpServers.atrium.url, 'http://127.0.0.1:8080/v1/expose/mcp');
    assert.equal(cursor.mcpServers.atrium.headers.Authorization, 'Bearer <API_KEY>');
    const claude = JSON.parse(configs.find((c) => c.id === 'claude-desktop')?.text ?? '{}');
    assert.deepEqual(claude.mcpServers.atrium.args, ['mcp', '--stdio', '--url', 'http://127.0.0.1:8080']);
  });
});

describe('source urls', () => {
  it('links absolute http and https URLs only', () => {
    assert.deepEqual(sourceUrl('https://wiki.example.com/a?b=1#c'), { kind: 'link', href: 'https://wiki.example.com/a?b=1#c' });
    assert.deepEqual(sourceUrl(' http://intranet/page '), { kind: 'link', href: 'http://intranet/page' });
    for (const raw of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<b>x</b>', 'ms-msdt:/id x', 'search-ms:query=x', 'vbscript:x', 'keys?x=1', '//evil.example/x', '/v1/api-keys', 'https://']) {
      assert.deepEqual(sourceUrl(raw), { kind: 'text', text: raw.trim() }, raw);
    }
  });

  it('shows the path of a file url, as the filesystem connector writes it', () => {
    assert.deepEqual(sourceUrl('file:///srv/share/a b.md'), { kind: 'text', text: '/srv/share/a b.md' });
    assert.deepEqual(sourceUrl('file:///srv/share/%C3%A9t%C3%A9.md'), { kind: 'text', text: '/srv/share/été.md' });
    assert.deepEqual(sourceUrl('file:///srv/100%.md'), { kind: 'text', text: '/srv/100%.md' }, 'an unencoded % stays');
    assert.deepEqual(sourceUrl('file:///srv/notes#1.md'), { kind: 'text', text: '/srv/notes#1.md' }, 'not cut at #');
    assert.deepEqual(sourceUrl('file://fileserver/share/x.md'), { kind: 'text', text: '//fileserver/share/x.md' });
    assert.deepEqual(sourceUrl('file://localhost/etc/x'), { kind: 'text', text: '/etc/x' });
  });
});

describe('sso error codes', () => {
  it("maps the service's codes to the console's own messages", () => {
    assert.match(ssoErrorMessage('saml_replay') ?? '', /^Single sign-on failed\. .*already used/);
    assert.match(ssoErrorMessage('sso_user_disabled') ?? '', /disabled/);
    assert.equal(ssoErrorMessage(null), null);
  });

  it('shows only the generic message for anything else', () => {
    for (const code of ['Call +1-555-0100 now', '', 'toString', '__proto__', 'constructor', 'saml_replay ']) assert.equal(ssoErrorMessage(code), SSO_FAILED, code);
  });
});

describe('AI usage', () => {
  const now = new Date('2026-11-25T15:00:00Z');
  it('reads filters from the URL, defaulting to the last 30 days, and writes them back', () => {
    const d = filtersFromQuery(new URLSearchParams(''), now);
    assert.deepEqual([d.from, d.to, d.provider, d.rule], ['2026-10-27', '2026-11-25', '', '']);
    const f = filtersFromQuery(new URLSearchParams('from=2026-11-20&to=2026-11-01&provider=openai&user=a%40b.test&rule=new_user'), now);
    assert.deepEqual([f.from, f.to], ['2026-11-01', '2026-11-20'], 'swapped when reversed');
    assert.equal(filtersToQuery(f), 'from=2026-11-01&to=2026-11-20&provider=openai&user=a%40b.test&rule=new_user');
    const bad = filtersFromQuery(new URLSearchParams('from=2026-02-30&to=soon'), now);
    assert.deepEqual([bad.from, bad.to], ['2026-10-27', '2026-11-25']);
    assert.deepEqual(dayRange('2026-02-27', '2026-03-01'), ['2026-02-27', '2026-02-28', '2026-03-01']);
  });
  it('pivots grouped rows into daily series, the top ones and "other"', () => {
    const days = ['2026-11-01', '2026-11-02'];
    const rows = [
      { day: '2026-11-01', model: 'a', v: 5 },
      { day: '2026-11-02', model: 'a', v: 5 },
      { day: '2026-11-01', model: 'b', v: 3 },
      { day: '2026-11-02', model: 'c', v: 2 },
      { day: '2026-11-02', model: null, v: 1 },
      { day: '2026-10-31', model: 'a', v: 100 },
    ];
    const s = pivotDaily(rows, days, 'model', (r) => r.v, 2);
    assert.deepEqual(
      s.map((x) => [x.name, x.values]),
      [
        ['a', [5, 5]],
        ['b', [3, 0]],
        ['other', [0, 3]],
      ],
    );
  });
  it('makes round axis ticks and short units', () => {
    assert.deepEqual(niceTicks(261), [0, 100, 200, 300]);
    assert.deepEqual(niceTicks(0), [0, 1]);
    assert.deepEqual(niceTicks(9), [0, 2.5, 5, 7.5, 10]);
    assert.deepEqual([formatUsd(0), formatUsd(2.5), formatUsd(1500), formatUsd(1234.5, true)], ['$0', '$2.50', '$1.5k', '$1,234.50']);
    assert.deepEqual([formatCount(950), formatCount(25_800), formatCount(1_200_000)], ['950', '25.8k', '1.2M']);
    assert.equal(ruleLabel('unsanctioned_model'), 'Model not on the allow-list');
  });
});
