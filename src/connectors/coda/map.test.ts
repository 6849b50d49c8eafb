import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codaValueText, type DocRef, docAcl, docToDocument, pageToDocument, rowToDocument, tidyMarkdown } from './map.ts';

const doc: DocRef = {
  id: 'docAbc123',
  name: 'Handbook',
  browserLink: 'https://coda.io/d/_ddocAbc123',
  owner: 'Ada@Acme.TEST',
  ownerName: 'Ada Lovelace',
  workspaceId: 'ws-1',
  folderName: 'Engineering',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-05T00:00:00.000Z',
};

describe('coda mapping', () => {
  it('maps a page: subtitle and location, tidied Markdown, creator as author, doc ACL', () => {
    const d = pageToDocument(
      {
        id: 'canvas-1',
        name: 'Runbooks',
        subtitle: 'When things break',
        browserLink: 'https://coda.io/d/_ddocAbc123/_sucanvas-1',
        contentType: 'canvas',
        parent: { id: 'canvas-0', name: 'Onboarding' },
        createdAt: '2026-01-02T00:00:00Z',
        updatedAt: '2026-01-03T00:00:00Z',
        createdBy: { name: 'Grace', email: 'Grace@Acme.test' },
      },
      doc,
      '## Paging   \r\n\r\n\r\n\r\n- Acknowledge\n',
    );
    assert.equal(d.external_id, 'page:docAbc123:canvas-1');
    assert.equal(d.title, 'Runbooks');
    assert.equal(d.content, 'When things break\n\nIn Handbook › Onboarding\n\n## Paging\n\n- Acknowledge');
    assert.equal(d.author, 'grace@acme.test');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z']);
    assert.equal(d.metadata?.updated_at, '2026-01-03T00:00:00Z', 'the vendor value, compared as is by incremental syncs');
    assert.deepEqual(d.acl, { users: ['ada@acme.test'], groups: ['coda:doc:docAbc123'] });
  });

  it('maps a row as `Column: value` lines, titled by its display value', () => {
    const d = rowToDocument(
      {
        id: 'i-1',
        name: 'billing-api',
        index: 1,
        browserLink: 'https://coda.io/d/_ddocAbc123#_tugrid/_rui-1',
        createdAt: '2026-01-02T00:00:00.000Z',
        updatedAt: '2026-01-04T00:00:00.000Z',
        values: { Service: 'billing-api', Tier: 1, Languages: ['Go', 'SQL'], 'On call': true, Notes: 'Line one\nLine two', Empty: '' },
      },
      { id: 'grid-1', name: 'Services' },
      doc,
    );
    assert.equal(d.external_id, 'row:docAbc123:grid-1:i-1');
    assert.equal(d.title, 'billing-api');
    assert.equal(d.content, 'Services row in Handbook\nService: billing-api\nTier: 1\nLanguages: Go, SQL\nOn call: Yes\nNotes:\nLine one\nLine two');
    assert.equal(d.document_type, 'row');
    const untitled = rowToDocument({ ...{ id: 'i-2', index: 2, browserLink: 'x', createdAt: 'a', updatedAt: 'b', values: {} } }, { id: 'g', name: 'Services' }, doc);
    assert.equal(untitled.title, 'Services row 2');
  });

  it('maps the doc with its pages and tables; values and Markdown helpers', () => {
    const d = docToDocument(doc, ['Onboarding', 'Runbooks'], ['Services']);
    assert.equal(d.content, 'Coda doc Handbook\nOwner: Ada Lovelace (Ada@Acme.TEST)\nFolder: Engineering\n\nPages:\n- Onboarding\n- Runbooks\n\nTables:\n- Services');
    assert.equal(d.metadata?.updated_at, doc.updatedAt);
    assert.equal(codaValueText({ name: 'Ada', email: 'a@x' }), 'Ada');
    assert.equal(codaValueText([[1, 2], 'x']), '1, 2, x');
    assert.equal(codaValueText({ nested: {} }), '');
    assert.equal(tidyMarkdown('a  \n\n\n\nb\n'), 'a\n\nb');
    assert.deepEqual(docAcl({ id: 'd', owner: null }), { groups: ['coda:doc:d'] });
  });
});
