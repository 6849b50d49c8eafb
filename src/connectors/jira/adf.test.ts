import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AdfNode, adfToText } from './adf.ts';

const doc = (...content: AdfNode[]): AdfNode => ({ type: 'doc', attrs: { version: 1 }, content } as AdfNode);
const p = (...content: AdfNode[]): AdfNode => ({ type: 'paragraph', content });
const t = (text: string, marks?: AdfNode['marks']): AdfNode => ({ type: 'text', text, ...(marks ? { marks } : {}) });
const li = (...content: AdfNode[]): AdfNode => ({ type: 'listItem', content });

describe('ADF → text', () => {
  it('renders paragraphs separated by blank lines, hard breaks as newlines, marks dropped', () => {
    const d = doc(p(t('Login '), t('loops', [{ type: 'strong' }]), t(' forever.')), p(t('line one'), { type: 'hardBreak' }, t('line two')));
    assert.equal(adfToText(d), 'Login loops forever.\n\nline one\nline two');
  });

  it('renders headings with # by level', () => {
    assert.equal(adfToText(doc({ type: 'heading', attrs: { level: 2 }, content: [t('Steps')] }, p(t('x')))), '## Steps\n\nx');
  });

  it('renders bullet, ordered (from its order), nested and task lists', () => {
    const nested: AdfNode = { type: 'bulletList', content: [li(p(t('inner')))] };
    const d = doc(
      { type: 'bulletList', content: [li(p(t('one'))), li(p(t('two')), nested)] },
      { type: 'orderedList', attrs: { order: 3 }, content: [li(p(t('third'))), li(p(t('fourth')))] },
      { type: 'taskList', attrs: { localId: 'l' }, content: [{ type: 'taskItem', attrs: { state: 'DONE' }, content: [t('shipped')] }, { type: 'taskItem', attrs: { state: 'TODO' }, content: [t('document')] }] },
    );
    assert.equal(adfToText(d), '- one\n- two\n  - inner\n\n3. third\n4. fourth\n\n[x] shipped\n[ ] document');
  });

  it('renders code blocks fenced with their language, inline code in backticks', () => {
    const d = doc(p(t('run '), t('npm test', [{ type: 'code' }])), { type: 'codeBlock', attrs: { language: 'ts' }, content: [t('const a = 1;\nconst b = 2;')] });
    assert.equal(adfToText(d), 'run `npm test`\n\n```ts\nconst a = 1;\nconst b = 2;\n```');
  });

  it('renders mentions, links, smart links, emoji, status and dates as readable text', () => {
    const d = doc(
      p(
        { type: 'mention', attrs: { id: '5b10ac8d82e05b22cc7d4ef5', text: '@Grace Hopper' } },
        t(' see '),
        t('the runbook', [{ type: 'link', attrs: { href: 'https://wiki.example.com/runbook' } }]),
        t(' and '),
        { type: 'inlineCard', attrs: { url: 'https://acme.atlassian.net/browse/ENG-2' } },
        t(' '),
        { type: 'emoji', attrs: { shortName: ':smile:', text: '😄' } },
        t(' '),
        { type: 'status', attrs: { text: 'BLOCKED', color: 'red' } },
        t(' due '),
        { type: 'date', attrs: { timestamp: '1767571200000' } },
      ),
      p({ type: 'mention', attrs: { id: 'abc', text: 'Ada' } }, t(' '), t('https://x.test', [{ type: 'link', attrs: { href: 'https://x.test' } }])),
    );
    assert.equal(
      adfToText(d),
      '@Grace Hopper see the runbook (https://wiki.example.com/runbook) and https://acme.atlassian.net/browse/ENG-2 😄 [BLOCKED] due 2026-01-05\n\n@Ada https://x.test',
    );
  });

  it('renders tables as | rows |, with pipes in cells escaped', () => {
    const cell = (type: string, text: string): AdfNode => ({ type, content: [p(t(text))] });
    const d = doc({
      type: 'table',
      content: [
        { type: 'tableRow', content: [cell('tableHeader', 'Env'), cell('tableHeader', 'Status')] },
        { type: 'tableRow', content: [cell('tableCell', 'prod'), cell('tableCell', 'a|b')] },
      ],
    });
    assert.equal(adfToText(d), '| Env | Status |\n| prod | a\\|b |');
  });

  it('renders quotes, panels, expands, rules and layout columns; media keeps its alt text', () => {
    const d = doc(
      { type: 'blockquote', content: [p(t('quoted')), p(t('twice'))] },
      { type: 'panel', attrs: { panelType: 'warning' }, content: [p(t('careful'))] },
      { type: 'expand', attrs: { title: 'Details' }, content: [p(t('hidden text'))] },
      { type: 'rule' },
      { type: 'layoutSection', content: [{ type: 'layoutColumn', content: [p(t('left'))] }, { type: 'layoutColumn', content: [p(t('right'))] }] },
      { type: 'mediaSingle', content: [{ type: 'media', attrs: { id: 'm1', type: 'file', alt: 'screenshot.png' } }] },
    );
    assert.equal(adfToText(d), '> quoted\n>\n> twice\n\nWARNING: careful\n\n▸ Details\n  hidden text\n\n---\n\nleft\n\nright\n\n[screenshot.png]');
  });

  it('keeps the words of unknown nodes, returns strings as is and garbage as empty', () => {
    assert.equal(adfToText(doc({ type: 'futureBlock', content: [p(t('still here'))] })), 'still here');
    assert.equal(adfToText('h1. wiki markup'), 'h1. wiki markup');
    assert.equal(adfToText(null), '');
    assert.equal(adfToText({ nope: 1 }), '');
    assert.equal(adfToText(doc()), '');
  });
});
