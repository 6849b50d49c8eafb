import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commentAcl, commentToDocument, issueToDocument, type JiraIssue, jiraPerson, jiraTime, jqlDate } from './map.ts';

const issue: JiraIssue = {
  id: '10101',
  key: 'ENG-7',
  fields: {
    summary: 'Login loops',
    description: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'After SSO the app redirects forever.' }] }] },
    status: { name: 'In Progress', statusCategory: { key: 'indeterminate' } },
    assignee: null,
    reporter: { accountId: 'acc-1', displayName: 'Ada Lovelace', emailAddress: 'Ada@Acme.TEST' },
    creator: { accountId: 'acc-2' },
    labels: ['sso', 'customer'],
    priority: { name: 'High' },
    issuetype: { name: 'Bug' },
    project: { id: '10000', key: 'ENG' },
    created: '2026-01-05T10:00:00.000+0100',
    updated: '2026-01-06T09:30:00.000+0000',
  },
};

describe('jira mapping', () => {
  it('maps an issue: key title, text content with status/assignee/labels lines, browse URL, email author, project ACL', () => {
    const d = issueToDocument(issue, 'https://acme.atlassian.net');
    assert.equal(d.external_id, 'issue:10101');
    assert.equal(d.title, 'ENG-7: Login loops');
    assert.equal(d.content, 'After SSO the app redirects forever.\n\nType: Bug\nStatus: In Progress\nPriority: High\nAssignee: Unassigned\nReporter: Ada Lovelace\nLabels: sso, customer');
    assert.equal(d.url, 'https://acme.atlassian.net/browse/ENG-7');
    assert.equal(d.author, 'ada@acme.test');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-05T09:00:00.000Z', '2026-01-06T09:30:00.000Z']);
    assert.deepEqual(d.acl, { groups: ['jira:project:10000'] });
    assert.equal('security_level' in (d.metadata ?? {}), false);
    const secured = issueToDocument({ ...issue, fields: { ...issue.fields, security: { id: '9', name: 'Staff' } } }, 'https://acme.atlassian.net');
    assert.equal(secured.metadata?.security_level, 'Staff');
  });

  it('names people by lower-cased email, else jira:<accountId>', () => {
    assert.equal(jiraPerson({ accountId: 'a', emailAddress: 'X@Y.z' }), 'x@y.z');
    assert.equal(jiraPerson(null, { accountId: 'b' }), 'jira:b');
    assert.equal(jiraPerson(undefined), undefined);
  });

  it('maps comments with their issue, focused URL and visibility ACL', () => {
    const c = commentToDocument({ id: '500', author: { accountId: 'acc-9' }, body: 'plain', created: '2026-01-07T00:00:00.000+0000' }, issue, 'https://acme.atlassian.net/');
    assert.equal(c.external_id, 'comment:10101:500');
    assert.equal(c.url, 'https://acme.atlassian.net/browse/ENG-7?focusedCommentId=500');
    assert.equal(c.author, 'jira:acc-9');
    assert.equal(c.updated_at, '2026-01-07T00:00:00.000Z');
    assert.deepEqual(commentAcl({ id: '1', body: null, created: 'x', visibility: { type: 'role', value: 'Developers' } }, '10000'), { groups: ['jira:project:10000:role:Developers'] });
    assert.deepEqual(commentAcl({ id: '1', body: null, created: 'x', visibility: { type: 'group', value: 'staff', identifier: 'g-1' } }, '10000'), { groups: ['jira:group:g-1'] });
  });

  it('parses Jira timestamps and writes JQL dates in the user time zone', () => {
    assert.equal(jiraTime('2026-07-01T12:00:00.000-0700'), '2026-07-01T19:00:00.000Z');
    assert.equal(jiraTime('not a date'), 'not a date');
    assert.equal(jqlDate('2026-01-05T23:30:00.000Z', 'Europe/Berlin'), '2026/01/06 00:30');
    assert.equal(jqlDate('2026-07-05T23:30:00.000Z', 'America/Los_Angeles'), '2026/07/05 16:30');
    assert.equal(jqlDate('2026-01-05T23:30:00.000Z', 'Not/AZone'), '2026/01/05 23:30');
    assert.equal(jqlDate('2026-01-05T23:30:00.000Z', undefined), '2026/01/05 23:30');
  });
});
