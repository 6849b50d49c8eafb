import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { incident, incidentToDocument, isoOf, kbAcl, kbArticle } from './map.ts';

const pair = (value: string, display = value) => ({ value, display_value: display });

describe('servicenow mapping', () => {
  it('reads stored datetimes as UTC', () => {
    assert.equal(isoOf('2026-01-05 09:01:00'), '2026-01-05T09:01:00.000Z');
    assert.equal(isoOf('05/01/2026'), undefined);
  });

  it('an article\'s ACL: its own criteria, else a restricted or unknown base, else public', () => {
    const a = kbArticle.parse({ sys_id: pair('a1'), kb_knowledge_base: pair('kb1', 'IT'), can_read_user_criteria: pair('') });
    assert.deepEqual(kbAcl(a, new Set()), { public: true });
    assert.deepEqual(kbAcl(a, new Set(['kb1'])), { groups: ['servicenow:kb:kb1'] });
    assert.deepEqual(kbAcl(a, null), { groups: ['servicenow:kb:kb1'] });
    const own = kbArticle.parse({ sys_id: pair('a2'), kb_knowledge_base: pair('kb1'), can_read_user_criteria: pair('uc1,uc2') });
    assert.deepEqual(kbAcl(own, new Set()), { groups: ['servicenow:user_criteria:uc1', 'servicenow:user_criteria:uc2'] });
    const excluded = kbArticle.parse({ sys_id: pair('a3'), kb_knowledge_base: pair('kb1'), cannot_read_user_criteria: pair('uc9') });
    assert.deepEqual(kbAcl(excluded, new Set()), { groups: ['servicenow:kb:kb1'] });
  });

  it('renders an incident with display values and its journal, work notes marked internal', () => {
    const i = incident.parse({ sys_id: pair('i1'), number: pair('INC1'), short_description: pair('Mail down'), state: pair('2', 'In Progress'), caller_id: pair('u1', 'Carl'), assigned_to: pair(''), sys_updated_on: pair('2026-01-05 10:00:00'), opened_at: pair('2026-01-05 09:00:00') });
    const d = incidentToDocument(
      i,
      [
        { element_id: 'i1', element: 'work_notes', value: 'Policy blocks it.', sys_created_on: '2026-01-05 09:30:00', sys_created_by: 'grace' },
        { element_id: 'i1', element: 'comments', value: 'Still broken.', sys_created_on: '2026-01-05 09:10:00', sys_created_by: 'carl' },
      ],
      { instanceUrl: 'https://acme.service-now.com' },
    );
    assert.equal(d.title, 'INC1 Mail down');
    assert.equal(d.url, 'https://acme.service-now.com/incident.do?sys_id=i1');
    assert.equal(d.content, ['Number: INC1\nState: In Progress\nCaller: Carl\nAssigned to: Unassigned', 'carl — 2026-01-05 09:10 UTC (comment)\nStill broken.', 'grace — 2026-01-05 09:30 UTC (work note, internal)\nPolicy blocks it.'].join('\n\n'));
    assert.equal(d.created_at, '2026-01-05T09:00:00.000Z');
    assert.deepEqual(d.acl, { groups: ['servicenow:incidents'] });
  });
});
