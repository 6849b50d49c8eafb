import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aclFor, commentToDocument, comment, docToDocument, listToDocument, msIso, pagesText, task, taskToDocument } from './map.ts';

const place = { teamId: '9', listId: '900', path: 'Engineering / Backend / Sprint', acl: { groups: ['clickup:team:9'] } };

describe('clickup map', () => {
  it('reads Unix milliseconds as strings or numbers; empty and zero are no time', () => {
    assert.equal(msIso('1767603600000'), '2026-01-05T09:00:00.000Z');
    assert.equal(msIso(1767603600000), '2026-01-05T09:00:00.000Z');
    assert.equal(msIso(null), undefined);
    assert.equal(msIso('0'), undefined);
  });

  it('ACL: private list → its group, else private space → its group, else the Workspace', () => {
    assert.deepEqual(aclFor('9', { id: '1', private: true }, { id: '2', private: true }), { groups: ['clickup:list:2'] });
    assert.deepEqual(aclFor('9', { id: '1', private: true }, { id: '2' }), { groups: ['clickup:space:1'] });
    assert.deepEqual(aclFor('9', { id: '1', private: false }), { groups: ['clickup:team:9'] });
  });

  it('maps a task: custom id title, text then status lines and checklists, creator email, ms dates', () => {
    const t = task.parse({
      id: 'abc',
      custom_id: 'ENG-1',
      name: 'Rotate keys',
      text_content: 'Rotate them.',
      description: '<p>Rotate them.</p>',
      status: { status: 'in progress', type: 'custom' },
      date_created: '1767603600000',
      date_updated: '1767607200000',
      creator: { id: 1, username: 'Ada', email: 'Ada@X.test' },
      assignees: [{ id: 2, username: 'Grace', email: 'g@x.test' }],
      tags: [{ name: 'security' }],
      priority: { priority: 'high' },
      checklists: [{ name: 'Steps', items: [{ name: 'one', resolved: true }, { name: 'two', resolved: false }] }],
      url: 'https://app.clickup.com/t/abc',
    });
    const d = taskToDocument(t, place);
    assert.equal(d.external_id, 'task:abc');
    assert.equal(d.title, 'ENG-1: Rotate keys');
    assert.equal(
      d.content,
      'Rotate them.\n\nStatus: in progress\nPriority: high\nAssignees: Grace\nTags: security\nList: Engineering / Backend / Sprint\n\nChecklist Steps:\n- [x] one\n- [ ] two',
    );
    assert.equal(d.author, 'ada@x.test');
    assert.equal(d.url, 'https://app.clickup.com/t/abc');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-05T09:00:00.000Z', '2026-01-05T10:00:00.000Z']);
    assert.equal(d.metadata?.modified, '2026-01-05T10:00:00.000Z');
    assert.deepEqual(d.acl, place.acl);
  });

  it('maps a comment to its task link; an author without email is clickup:<id>', () => {
    const t = task.parse({ id: 'abc', name: 'Rotate keys' });
    const c = comment.parse({ id: 77, comment_text: ' Done. ', user: { id: 5, username: 'Bot' }, date: '1767603600000' });
    const d = commentToDocument(t, c, place);
    assert.equal(d.external_id, 'comment:abc:77');
    assert.equal(d.title, 'Comment on Rotate keys');
    assert.equal(d.content, 'Done.');
    assert.equal(d.url, 'https://app.clickup.com/t/abc?comment=77');
    assert.equal(d.author, 'clickup:5');
  });

  it('renders Doc pages as Markdown under their names, sub-pages one level deeper; a public Doc is public', () => {
    const pages = [{ id: 'p1', name: 'Intro', content: 'Hello **there**.', pages: [{ id: 'p2', name: 'Details', content: 'More.' }] }];
    assert.equal(pagesText(pages), '# Intro\n\nHello **there**.\n\n## Details\n\nMore.');
    const d = docToDocument('9', { id: 'dc1', name: 'Handbook', date_created: 1767603600000, public: true }, pages, { groups: ['clickup:team:9'] }, 'clickup:1');
    assert.equal(d.url, 'https://app.clickup.com/9/v/dc/dc1');
    assert.deepEqual(d.acl, { public: true });
    assert.equal(d.updated_at, '2026-01-05T09:00:00.000Z', 'no date_updated: the creation time');
  });

  it('a list document names its place and description', () => {
    const d = listToDocument('9', { id: '1', name: 'Eng', private: false }, { id: '2', name: 'Backend', lists: [] }, { id: '3', name: 'Bugs', content: 'All bugs.' });
    assert.equal(d.content, 'All bugs.\n\nList: Bugs\nLocation: Eng / Backend');
    assert.equal(d.url, 'https://app.clickup.com/9/v/li/3');
  });
});
