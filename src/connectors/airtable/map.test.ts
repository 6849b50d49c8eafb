import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VendorRateLimitedError } from '../kit/index.ts';
import { RATE_LIMIT_WAIT_MS, withAirtableWait } from './client.ts';
import { baseToDocument, cellText, recordToDocument, tableShape, tableToDocument } from './map.ts';
import { modifiedSinceFormula } from './sync.ts';

const table = {
  id: 'tblProjects000001',
  name: 'Projects',
  description: 'What we build',
  primaryFieldId: 'fldName',
  fields: [
    { id: 'fldName', name: 'Name', type: 'singleLineText' },
    { id: 'fldNotes', name: 'Notes', type: 'multilineText', description: 'free text' },
    { id: 'fldOwner', name: 'Owner', type: 'singleCollaborator' },
    { id: 'fldBudget', name: 'Budget', type: 'currency', options: { symbol: '$', precision: 0 } },
    { id: 'fldProgress', name: 'Progress', type: 'percent' },
    { id: 'fldDone', name: 'Done', type: 'checkbox' },
    { id: 'fldFiles', name: 'Files', type: 'multipleAttachments' },
    { id: 'fldBy', name: 'Created by', type: 'createdBy' },
    { id: 'fldMod', name: 'Modified', type: 'lastModifiedTime' },
    { id: 'fldCalc', name: 'Calc', type: 'formula' },
  ],
};
const base = { id: 'appRoadmap0000001', name: 'Roadmap' };

describe('airtable mapping', () => {
  it('renders a record as `Field: value` text in the schema order, titled by its primary field', () => {
    const d = recordToDocument(
      {
        id: 'recA',
        createdTime: '2026-01-10T09:00:00.000Z',
        fields: {
          Notes: 'Line one\nLine two',
          Name: 'Quantum billing',
          Owner: { id: 'usrG', email: 'grace@acme.test', name: 'Grace Hopper' },
          Budget: 1200,
          Progress: 0.25,
          Done: true,
          Files: [{ id: 'att1', url: 'https://x', filename: 'brief.pdf' }, { id: 'att2', url: 'https://y', filename: 'plan.png' }],
          'Created by': { id: 'usrA', email: 'Ada@Acme.TEST', name: 'Ada' },
          Modified: '2026-01-11T10:00:00.000Z',
          Calc: { error: '#ERROR!' },
          Extra: ['a', 'b'],
        },
      },
      tableShape(table),
      base,
    );
    assert.equal(d.external_id, 'record:appRoadmap0000001:tblProjects000001:recA');
    assert.equal(d.title, 'Quantum billing');
    assert.equal(
      d.content,
      [
        'Projects record in Roadmap',
        'Name: Quantum billing',
        'Notes:\nLine one\nLine two',
        'Owner: Grace Hopper (grace@acme.test)',
        'Budget: $1200',
        'Progress: 25%',
        'Done: Yes',
        'Files: brief.pdf, plan.png',
        'Created by: Ada (Ada@Acme.TEST)',
        'Modified: 2026-01-11T10:00:00.000Z',
        'Extra: a, b',
      ].join('\n'),
    );
    assert.equal(d.url, 'https://airtable.com/appRoadmap0000001/tblProjects000001/recA');
    assert.equal(d.author, 'ada@acme.test');
    assert.deepEqual([d.created_at, d.updated_at], ['2026-01-10T09:00:00.000Z', '2026-01-11T10:00:00.000Z']);
    assert.equal(d.document_type, 'record');
    assert.deepEqual(d.acl, { groups: ['airtable:base:appRoadmap0000001'] });
  });

  it('falls back to the table name and record id without a primary value; no updated_at without a lastModifiedTime field', () => {
    const d = recordToDocument({ id: 'recB', createdTime: '2026-01-10T09:00:00.000Z', fields: {} }, tableShape({ ...table, fields: table.fields.slice(0, 2) }), base);
    assert.equal(d.title, 'Projects recB');
    assert.equal(d.content, 'Projects record in Roadmap');
    assert.equal(d.updated_at, undefined);
    assert.equal(d.author, undefined);
  });

  it('renders table schemas and bases as text', () => {
    const t = tableToDocument(table, base);
    assert.equal(t.title, 'Projects (Roadmap)');
    assert.match(t.content, /^Table Projects in base Roadmap\n\nWhat we build\n\nFields:\n- Name \(singleLineText\) \[primary\]\n- Notes \(multilineText\): free text/);
    const b = baseToDocument({ ...base, permissionLevel: 'read' }, [table]);
    assert.equal(b.content, 'Airtable base Roadmap\n\nTables:\n- Projects: What we build');
    assert.equal(b.url, 'https://airtable.com/appRoadmap0000001');
  });

  it('cell values: durations, ratings, AI text, barcodes; never JSON', () => {
    assert.equal(cellText(5400, { type: 'duration' }), '1:30');
    assert.equal(cellText(4, { type: 'rating' }), '4/5');
    assert.equal(cellText({ state: 'generated', value: 'A summary', isStale: false }), 'A summary');
    assert.equal(cellText({ text: '0123', type: 'ean13' }), '0123');
    assert.equal(cellText({ unknown: { nested: 1 } }), '');
  });

  it('escapes the incremental formula literal and waits 30 s on a 429 without Retry-After', () => {
    assert.equal(modifiedSinceFormula("2026-01-01T00:00:00.000Z"), "IS_AFTER(LAST_MODIFIED_TIME(), '2026-01-01T00:00:00.000Z')");
    assert.equal(modifiedSinceFormula("a'b"), "IS_AFTER(LAST_MODIFIED_TIME(), 'a\\'b')");
    const waited = withAirtableWait(new VendorRateLimitedError('limited', null));
    assert.ok(waited instanceof VendorRateLimitedError && waited.retryAfterMs === RATE_LIMIT_WAIT_MS);
    const told = withAirtableWait(new VendorRateLimitedError('limited', 2000));
    assert.ok(told instanceof VendorRateLimitedError && told.retryAfterMs === 2000);
  });
});
