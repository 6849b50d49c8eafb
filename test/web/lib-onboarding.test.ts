// Unit tests of the console's issue-26 pure functions (web/src/lib, and the chart's tick helper): no browser, no I/O.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confidenceView } from '../../web/src/lib/confidence.ts';
import { looksLikeMarkdown, stripMarkdown } from '../../web/src/lib/markdown.ts';
import { collapseDuplicates, dampingLabel, filteringLabel, sourceName } from '../../web/src/lib/plain-labels.ts';
import { csvHeader, formatBytes, formatOfName, jsonlFields } from '../../web/src/lib/upload.ts';
import { xTicks } from '../../web/src/lib/ticks.ts';

describe('plain labels', () => {
  it('names the filtering in plain words and keeps the terms for the hover text', () => {
    const f = filteringLabel('low', 0.99);
    assert.equal(f.text, 'light filtering');
    assert.match(f.term, /user entropy 0\.99 · entropy level low/);
    assert.equal(filteringLabel('very_low', 0.1).text, 'showing everything that matches');
    assert.equal(filteringLabel(undefined, 0).text, 'no filtering level');
    assert.equal(dampingLabel(false).text, 'all results shown');
    assert.match(dampingLabel(true).term, /homeostasis damping active/);
  });

  it('names sources, remote ones as node › source', () => {
    const names = new Map([
      ['api-x1', 'Wiki'],
      ['paris', 'Paris office'],
    ]);
    assert.equal(sourceName('api-x1', names), 'Wiki');
    assert.equal(sourceName('paris/jira-1', names), 'Paris office › jira-1');
    assert.equal(sourceName('berlin/gh', names), 'berlin › gh');
    assert.equal(sourceName('unknown', names), 'unknown');
  });

  it('folds identical passages, keeping the first and listing the other sources once', () => {
    const items = [
      { id: '1', content: 'VPN  setup\nsteps', source_node: 'a' },
      { id: '2', content: 'other', source_node: 'a' },
      { id: '3', content: 'vpn setup steps', source_node: 'b' },
      { id: '4', content: 'VPN setup steps', source_node: 'b' },
      { id: '5', content: 'VPN setup steps', source_node: 'a' },
      { id: '6', content: '', source_node: 'c' },
      { id: '7', content: '', source_node: 'd' },
    ];
    const out = collapseDuplicates(items);
    assert.deepEqual(
      out.map((o) => [o.item.id, o.alsoIn]),
      [
        ['1', ['b']],
        ['2', []],
        ['6', []],
        ['7', []],
      ],
    );
  });
});

describe('markdown', () => {
  it('recognises Markdown by type or by two kinds of syntax', () => {
    assert.equal(looksLikeMarkdown('plain words', 'markdown'), true);
    assert.equal(looksLikeMarkdown('# Title\n\n- item', 'page'), true);
    assert.equal(looksLikeMarkdown('Column: value\nOther: 2', 'csv_row'), false);
    assert.equal(looksLikeMarkdown('just one **bold** word', undefined), false);
  });
  it('strips syntax and tags for snippets, keeping link and emphasis text', () => {
    assert.equal(
      stripMarkdown('## Connecting\n\n1. Install the **WireGuard** client.\n2. See [the portal](https://p.example).\n\n<img src=x onerror="1"> `code` *em*'),
      'Connecting\n\nInstall the WireGuard client.\nSee the portal.\n\n code em',
    );
    assert.equal(stripMarkdown('snake_case_name stays'), 'snake_case_name stays');
  });
});

describe('upload helpers', () => {
  it('tells the format from the file name', () => {
    assert.equal(formatOfName('Export.ZIP'), 'zip');
    assert.equal(formatOfName('t.csv'), 'csv');
    assert.equal(formatOfName('docs.ndjson'), 'jsonl');
    assert.equal(formatOfName('notes.txt'), null);
  });
  it('reads CSV header names (BOM, quotes, CRLF) and JSONL field names', () => {
    assert.deepEqual(csvHeader('\ufeffid,"Title, long","say ""hi"""\r\n1,2,3'), ['id', 'Title, long', 'say "hi"']);
    assert.deepEqual(jsonlFields('{"id":1,"subject":"x"}\n{"id":2}'), ['id', 'subject']);
    assert.deepEqual(jsonlFields('not json'), []);
    assert.equal(formatBytes(999), '999 bytes');
    assert.equal(formatBytes(27_993), '28 kB');
    assert.equal(formatBytes(64 * 1024 * 1024), '67 MB');
  });
});

describe('translation confidence view', () => {
  it('shows a low band with fine retrieval without alarm, and says retrain only when both are poor', () => {
    assert.deepEqual(
      [confidenceView(0.51, 0.66, true).tone, confidenceView(0.51, 0.66, true).label],
      ['neutral', 'low; retrieval fine'],
    );
    assert.equal(confidenceView(0.36, 0.46, true).label, 'low; use with care');
    assert.equal(confidenceView(0.36, 0.46, false).label, 'poor, retrain');
    assert.equal(confidenceView(0.36, null, false).tone, 'bad');
    assert.equal(confidenceView(0.97, 0.2, false).tone, 'good');
    assert.match(confidenceView(0.5, 0.9, true).meaning, /less than 70 %/);
  });
});

describe('line chart ticks', () => {
  it('gives whole-number epoch ticks including both ends, or evenly spaced ones', () => {
    assert.deepEqual(xTicks(1, 3, 5, true), [1, 2, 3]);
    assert.deepEqual(xTicks(1, 20, 5, true), [1, 6, 11, 16, 20]);
    assert.deepEqual(xTicks(0, 100, 5, false), [0, 25, 50, 75, 100]);
    assert.deepEqual(xTicks(4, 4, 5, true), [4]);
  });
});
