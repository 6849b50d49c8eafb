import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notionId, paragraphs } from './actions.ts';
import { type BlockNode, type NotionBlock, renderBlocks } from './render.ts';

const rt = (s: string) => [{ plain_text: s, href: null }];
let n = 0;
const b = (type: string, body: Record<string, unknown>, children: BlockNode[] = []): BlockNode => ({ block: { id: `b${++n}`, type, [type]: body } as NotionBlock, children });

describe('notion block rendering', () => {
  it('renders headings, lists (numbered per run), to-dos, quotes and dividers', () => {
    const text = renderBlocks([
      b('heading_1', { rich_text: rt('Title') }),
      b('heading_2', { rich_text: rt('Sub') }),
      b('heading_3', { rich_text: rt('Small') }),
      b('numbered_list_item', { rich_text: rt('one') }),
      b('numbered_list_item', { rich_text: rt('two') }),
      b('paragraph', { rich_text: rt('break') }),
      b('numbered_list_item', { rich_text: rt('again') }),
      b('bulleted_list_item', { rich_text: rt('dot') }, [b('bulleted_list_item', { rich_text: rt('nested') })]),
      b('to_do', { rich_text: rt('done'), checked: true }),
      b('to_do', { rich_text: rt('open'), checked: false }),
      b('quote', { rich_text: rt('wise') }),
      b('divider', {}),
    ]);
    assert.equal(text, ['# Title', '## Sub', '### Small', '1. one', '2. two', 'break', '1. again', '- dot', '  - nested', '[x] done', '[ ] open', '> wise', '---'].join('\n'));
  });

  it('renders code with its language, callouts with their icon, toggles with children, tables row by row', () => {
    const text = renderBlocks([
      b('code', { rich_text: rt('const a = 1;\nconst b = 2;'), language: 'typescript', caption: [] }),
      b('callout', { rich_text: rt('Careful'), icon: { type: 'emoji', emoji: '⚠️' } }),
      b('toggle', { rich_text: rt('More') }, [b('paragraph', { rich_text: rt('hidden text') })]),
      b('table', { table_width: 2 }, [b('table_row', { cells: [rt('a'), rt('b')] }), b('table_row', { cells: [rt('1'), rt('2')] })]),
    ]);
    assert.equal(text, ['```typescript', 'const a = 1;', 'const b = 2;', '```', '⚠️ Careful', '▸ More', '  hidden text', '| a | b |', '| 1 | 2 |'].join('\n'));
  });

  it('renders links, media, child pages and databases as references', () => {
    const text = renderBlocks([
      b('bookmark', { url: 'https://x.dev', caption: rt('Docs') }),
      b('embed', { url: 'https://figma.com/f', caption: [] }),
      b('image', { type: 'external', external: { url: 'https://img/x.png' }, caption: rt('Diagram') }),
      b('child_page', { title: 'Sub page' }),
      b('child_database', { title: 'Tasks' }),
      b('link_to_page', { type: 'page_id', page_id: 'p1' }),
      b('equation', { expression: 'e=mc^2' }),
      b('column_list', {}, [b('column', {}, [b('paragraph', { rich_text: rt('in a column') })])]),
      b('unsupported', {}),
    ]);
    assert.equal(text, ['bookmark: Docs https://x.dev', 'embed https://figma.com/f', 'image: Diagram https://img/x.png', '[page: Sub page]', '[database: Tasks]', '[link to page: p1]', 'e=mc^2', 'in a column'].join('\n'));
  });
});

describe('notion action helpers', () => {
  it('reads page ids from ids and URLs', () => {
    const id = '1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d';
    assert.equal(notionId(id), id);
    assert.equal(notionId(id.replace(/-/g, '')), id);
    assert.equal(notionId(`https://www.notion.so/acme/Roadmap-${id.replace(/-/g, '')}?pvs=4`), id);
    assert.throws(() => notionId('roadmap'), /not a Notion page id/);
  });

  it('splits text into paragraph blocks within Notion limits', () => {
    const blocks = paragraphs(`first\n\nsecond ${'x'.repeat(2500)}`);
    assert.equal(blocks.length, 3);
    assert.equal(blocks[0]?.paragraph.rich_text[0]?.text.content, 'first');
    assert.ok(blocks.every((x) => x.paragraph.rich_text[0] && x.paragraph.rich_text[0].text.content.length <= 2000));
  });
});
