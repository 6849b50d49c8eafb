import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentPages, documentText, tidy } from './map.ts';

describe('gitbook mapping', () => {
  it('turns a JSON document (format=document) into one line per block', () => {
    const doc = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'heading-1', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Paging', marks: [] }] }] },
        {
          object: 'block',
          type: 'paragraph',
          nodes: [
            { object: 'text', leaves: [{ object: 'leaf', text: 'Acknowledge ' }, { object: 'leaf', text: 'quickly', marks: [{ type: 'bold' }] }] },
            { object: 'inline', type: 'link', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: ' (runbook)' }] }] },
          ],
        },
        { object: 'block', type: 'list-unordered', nodes: [{ object: 'block', type: 'list-item', nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'Escalate' }] }] }] }] },
      ],
    };
    assert.equal(documentText(doc), 'Paging\nAcknowledge quickly (runbook)\nEscalate');
    assert.equal(documentText(undefined), '');
  });

  it('lists document pages depth first with their trail; hidden pages only when asked; links never', () => {
    const tree = [
      { id: 'a', title: 'A', type: 'document', path: 'a' },
      { id: 'g', title: 'Group', type: 'group', pages: [{ id: 'b', title: 'B', type: 'document', path: 'g/b', hidden: true, pages: [{ id: 'c', title: 'C', type: 'document' }] }] },
      { id: 'l', title: 'Link', type: 'link' },
    ];
    assert.deepEqual(documentPages(tree, true).map((p) => [p.id, p.trail.join('/'), p.path]), [['a', '', 'a'], ['b', 'Group', 'g/b'], ['c', 'Group/B', 'c']]);
    assert.deepEqual(documentPages(tree, false).map((p) => p.id), ['a']);
    assert.equal(tidy('x  \r\n\r\n\r\n\r\ny\n'), 'x\n\ny');
  });
});
