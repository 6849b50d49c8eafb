// `npm run bench -- notion`: block rendering throughput (pure), and full / incremental syncs of the seeded fake
// Notion workspace through the real engine and @notionhq/client, where Notion's 3 requests/second ceiling dominates.
import { type BlockNode, type NotionBlock, renderBlocks } from '../src/connectors/notion/render.ts';
import { connectorWorker, timedSync } from '../test/connectors/support.ts';
import { startFakeNotion } from '../test/fakes/notion.ts';
import { createTestApp } from '../test/support/app.ts';
import { machineLine, writeBenchSection } from './report.ts';

const BLOCKS = Number(process.env.BENCH_NOTION_BLOCKS ?? 50_000);
const rt = (s: string) => [{ plain_text: s, href: null }];
const types: [string, Record<string, unknown>][] = [
  ['paragraph', { rich_text: rt('A paragraph of ordinary prose about the release process and its owners.') }],
  ['heading_2', { rich_text: rt('Section') }],
  ['numbered_list_item', { rich_text: rt('step') }],
  ['bulleted_list_item', { rich_text: rt('point') }],
  ['code', { rich_text: rt('npm run build && npm test'), language: 'bash' }],
  ['callout', { rich_text: rt('Note this'), icon: { type: 'emoji', emoji: '💡' } }],
  ['table_row', { cells: [rt('a'), rt('b'), rt('c')] }],
];
const tree: BlockNode[] = [];
for (let i = 0; i < BLOCKS; i++) {
  const [type, body] = types[i % types.length] ?? ['paragraph', {}];
  tree.push({ block: { id: `b${i}`, type, [type]: body } as NotionBlock, children: i % 10 === 0 ? [{ block: { id: `c${i}`, type: 'paragraph', paragraph: { rich_text: rt('nested') } } as NotionBlock, children: [] }] : [] });
}
renderBlocks(tree.slice(0, 1000));
const r0 = performance.now();
const text = renderBlocks(tree);
const renderMs = performance.now() - r0;

const notion = await startFakeNotion();
const t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ notion: notion.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
const worker = connectorWorker(t);
const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'notion', display_name: 'bench', credentials: { access_token: notion.token } } });
const id = created.json().connector_id as string;
await worker.drain();
// Let the token bucket refill after validation, so each run starts from the same state.
await new Promise((r) => setTimeout(r, 1100));

async function timed(full: boolean) {
  const before = notion.calls.length;
  const { ms, run } = await timedSync(t, worker, id, full);
  // Let the token bucket refill, so each run starts from the same state.
  await new Promise((r) => setTimeout(r, 1100));
  const calls = notion.calls.slice(before);
  return { ms, requests: calls.length, comments: calls.filter((c) => c.path === '/v1/comments').length, run };
}
const full = await timed(true);
const incremental = await timed(false);
await t.close();
await notion.close();

const row = (name: string, x: Awaited<ReturnType<typeof timed>>) =>
  `| ${name} | ${(x.ms / 1000).toFixed(1)} s | ${x.requests} (${x.comments}) | ${(Math.max(0, x.requests - 3) / (x.ms / 1000)).toFixed(2)} | ${x.run.added} / ${x.run.updated} / ${x.run.unchanged ?? 0} |`;
const md = [
  machineLine(),
  '',
  'Command: `npm run bench -- notion`',
  '',
  `Rendering ${BLOCKS.toLocaleString('en')} blocks (+10% nested) to ${(text.length / 1e6).toFixed(1)} MB of text: ${renderMs.toFixed(0)} ms (${Math.round(BLOCKS / (renderMs / 1000)).toLocaleString('en')} blocks/s).`,
  '',
  'Syncs of the seeded fake workspace (2 live pages + 1 archived, 1 data source with 2 rows, 3 page comments and 5 inline comments on 3 blocks; every block type), engine + `@notionhq/client` + PGlite:',
  '',
  '| sync | wall | Notion requests (of which comment lists) | requests/s after the burst of 3 | added / updated / unchanged |',
  '|---|---|---|---|---|',
  row('full', full),
  row('incremental, nothing changed', incremental),
  '',
  'Beyond a burst of 3, the token bucket holds the connector to Notion\'s 3 requests/second (180 per minute); each page read costs 1 request per block list (the page, plus each nested block with children) and, with `include_comments`, 1 + (blocks with content of their own) comment lists: Notion lists inline discussions per block. Pages are read only when they changed (incremental) or in a full sync, so an unchanged incremental sync costs a handful of requests while a full sync of a 1,000-page workspace at ~20 content blocks a page needs about 2 hours with comments (about 15 minutes without).',
].join('\n');
await writeBenchSection('notion', md);
console.log(md);
