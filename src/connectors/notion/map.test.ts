import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commentToDocument, dataSourceToDocument, type NotionPage, pageTitle, pageToDocument, parentInfo, propertyText } from './map.ts';

const rt = (s: string) => [{ plain_text: s, href: null }];
const users = { u1: 'Amy Lee', u2: 'Bob Park' };
const page = (over: Partial<NotionPage> = {}): NotionPage => ({
  object: 'page',
  id: 'p1',
  url: 'https://www.notion.so/Plan-p1',
  created_time: '2026-01-01T09:00:00.000Z',
  last_edited_time: '2026-01-02T10:00:00.000Z',
  created_by: { id: 'u1' },
  last_edited_by: { id: 'u2' },
  parent: { type: 'workspace', workspace: true },
  properties: { title: { type: 'title', title: rt('Plan') } },
  ...over,
});

describe('notion mappings', () => {
  it('renders property values of every common type', () => {
    assert.equal(propertyText({ type: 'select', select: { name: 'High' } }, users), 'High');
    assert.equal(propertyText({ type: 'multi_select', multi_select: [{ name: 'a' }, { name: 'b' }] }, users), 'a, b');
    assert.equal(propertyText({ type: 'people', people: [{ id: 'u1' }, { id: 'zz' }] }, users), 'Amy Lee, zz');
    assert.equal(propertyText({ type: 'date', date: { start: '2026-01-01', end: '2026-01-05' } }, users), '2026-01-01 → 2026-01-05');
    assert.equal(propertyText({ type: 'checkbox', checkbox: false }, users), 'no');
    assert.equal(propertyText({ type: 'number', number: 42 }, users), '42');
    assert.equal(propertyText({ type: 'formula', formula: { type: 'number', number: 7 } }, users), '7');
    assert.equal(propertyText({ type: 'unique_id', unique_id: { prefix: 'ENG', number: 12 } }, users), 'ENG-12');
    assert.equal(propertyText({ type: 'rich_text', rich_text: rt('hello') }, users), 'hello');
    assert.equal(propertyText({ type: 'url', url: null }, users), '');
  });

  it('maps a workspace page and a database row', () => {
    const d = pageToDocument(page(), [], users);
    assert.equal(d.external_id, 'page:p1');
    assert.equal(d.title, 'Plan');
    assert.equal(d.author, 'Amy Lee');
    assert.equal(d.document_type, 'page');
    assert.deepEqual(d.metadata?.parent, { type: 'workspace' });
    assert.equal(d.metadata?.last_edited_by_name, 'Bob Park');
    const row = pageToDocument(
      page({ parent: { type: 'data_source_id', data_source_id: 'ds1' }, properties: { Name: { type: 'title', title: rt('Row') }, Status: { type: 'status', status: { name: 'Done' } } } }),
      [],
      users,
    );
    assert.equal(row.document_type, 'database_row');
    assert.equal(row.content, 'Status: Done');
    assert.deepEqual(row.metadata?.properties, { Status: 'Done' });
    assert.equal(pageTitle(page({ properties: {} })), 'Untitled');
    assert.deepEqual(parentInfo({ type: 'page_id', page_id: 'p0' }), { type: 'page_id', id: 'p0' });
  });

  it('maps data sources and comments', () => {
    const ds = dataSourceToDocument(
      { object: 'data_source', id: 'ds1', title: rt('Tasks'), created_time: 't', last_edited_time: 't', properties: { Name: { type: 'title' }, Due: { type: 'date' } } },
      users,
    );
    assert.equal(ds.external_id, 'database:ds1');
    assert.equal(ds.content, 'Columns: Name (title), Due (date)');
    const c = commentToDocument({ id: 'c1', discussion_id: 'aaaa-bbbb', parent: { type: 'page_id', page_id: 'p1' }, created_time: 't', last_edited_time: 't', created_by: { id: 'u2' }, rich_text: rt('LGTM') }, page(), users);
    assert.equal(c.url, 'https://www.notion.so/Plan-p1?d=aaaabbbb');
    assert.equal(c.author, 'Bob Park');
    assert.equal(c.content, 'LGTM');
  });
});
