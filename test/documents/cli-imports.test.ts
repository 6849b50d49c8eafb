import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import JSZip from 'jszip';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/atrium');
const SLACK_EXPORT = path.resolve(import.meta.dirname, '../../../shared/data/slack-export/testarchive.zip');
const SLACK_JSONL = path.resolve(import.meta.dirname, '../../../shared/data/slack-export/messages.jsonl');
const NOTION_ID = '0123456789abcdef0123456789abcdef';

describe('atrium ingest of exports: Slack (zip and folder), Notion-style zip, CSV and mapped JSONL', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const ingest = async (...args: string[]) => {
    const r = await run(BIN, ['ingest', ...args, '--no-embed', '--json'], { env });
    return { summary: JSON.parse(r.stdout), stderr: r.stderr };
  };
  const search = async (q: string, source: string) =>
    JSON.parse((await run(BIN, ['search', q, '--mode', 'lexical', '--source', source, '--json', '--limit', '50'], { env })).stdout).passages as {
      external_id: string;
      title: string;
      content: string;
    }[];
  const fails = async (args: string[]) => {
    const r = await run(BIN, args, { env }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    assert.ok(r, `${args.join(' ')} succeeded`);
    assert.notEqual(r.code, 0);
    return r.stderr;
  };

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-imports-'));
    env = { ...process.env, ATRIUM_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent', ATRIUM_SECRET_KEY: 'cli-test' };
    // The same Slack export unpacked into a folder (exports are often shared that way).
    const zip = await JSZip.loadAsync(await fs.readFile(SLACK_EXPORT));
    for (const [name, entry] of Object.entries(zip.files)) {
      const target = path.join(dir, 'slack-folder', name);
      if (entry.dir) await fs.mkdir(target, { recursive: true });
      else {
        await fs.mkdir(path.dirname(target), { recursive: true });
        await fs.writeFile(target, await entry.async('nodebuffer'));
      }
    }
    // A Notion "Markdown & CSV" export: page ids appended to names, a database as CSV, an image no parser reads.
    const notion = new JSZip();
    notion.file(`Export-1/Roadmap ${NOTION_ID}.md`, '# Roadmap 2027\n\nShip the vec2vec bridge to every tenant in March.');
    notion.file(`Export-1/Roadmap ${NOTION_ID}/Hiring ${NOTION_ID}.md`, 'We hire two search engineers this quarter.');
    notion.file(`Export-1/Tasks ${NOTION_ID}.csv`, 'Name,Status,Owner\nMigrate billing,Done,Ada\nRotate signing keys,In progress,Grace\n');
    notion.file(`Export-1/Roadmap ${NOTION_ID}/diagram.png`, new Uint8Array([137, 80, 78, 71]));
    await fs.writeFile(path.join(dir, 'notion.zip'), await notion.generateAsync({ type: 'nodebuffer' }));
    await fs.writeFile(path.join(dir, 'tickets.csv'), '\ufeffticket,subject,body,opened,link\r\nT-1,Printer jams,"The third floor printer jams on glossy paper, daily",2026-03-04,https://desk.example.com/T-1\r\nT-2,VPN drops,VPN drops every hour,2026-03-05,https://desk.example.com/T-2\r\n');
    await fs.mkdir(path.join(dir, 'pictures'));
    await fs.writeFile(path.join(dir, 'pictures', 'photo.png'), new Uint8Array([137, 80, 78, 71]));
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('ingests the Slack export zip: one document per message with names for mentions, housekeeping left out', async () => {
    const { summary, stderr } = await ingest(SLACK_EXPORT, '--slack-url', 'https://magellan.slack.com');
    assert.match(stderr, /check: Slack export, \d+ documents/);
    assert.match(stderr, /2 channels, 4 users, \d+ messages/);
    assert.ok(summary.added > 100, JSON.stringify(summary));
    const hits = await search('build system python', summary.source);
    assert.ok(hits.length > 0);
    for (const h of await search('joined channel commit', summary.source)) {
      assert.doesNotMatch(h.content, /<@U[A-Z0-9]+>|has joined the channel/, 'mentions rendered, joins skipped');
    }
    assert.ok(hits.every((h) => /^msg:C[A-Z0-9]+:\d+\.\d+$/.test(h.external_id)), 'the Slack connector\'s ids');
    assert.ok(hits.every((h) => h.title.startsWith('#')), 'titled by channel and author');
    // The unpacked folder gives the same documents.
    const folder = await ingest(path.join(dir, 'slack-folder'));
    assert.equal(folder.summary.added, summary.added);
  });

  it('ingests a Notion export zip: titles without page ids, pages by heading, database rows as documents, images skipped', async () => {
    const { summary, stderr } = await ingest(path.join(dir, 'notion.zip'));
    assert.match(stderr, /check: export archive, 4 documents/);
    assert.match(stderr, /skipped .*diagram\.png: no parser/);
    assert.equal(summary.added, 4);
    const hits = await search('vec2vec hire billing signing', summary.source);
    const byId = Object.fromEntries(hits.map((h) => [h.external_id, h]));
    assert.equal(byId['Roadmap.md']?.title, 'Roadmap 2027');
    assert.equal(byId['Roadmap/Hiring.md']?.title, 'Hiring');
    assert.equal(byId['Tasks.csv#1']?.title, 'Tasks: Migrate billing');
    assert.match(byId['Tasks.csv#2']?.content ?? '', /Status: In progress\nOwner: Grace/);
  });

  it('ingests a CSV file with mapped columns, and re-ingesting it updates the same documents', async () => {
    const args = [path.join(dir, 'tickets.csv'), '--id-column', 'ticket', '--title-column', 'subject', '--text-column', 'body', '--url-column', 'link', '--date-column', 'opened'];
    const { summary } = await ingest(...args);
    assert.equal(summary.added, 2);
    const [hit] = await search('glossy paper', summary.source);
    assert.equal(hit?.external_id, 'T-1');
    assert.equal(hit?.title, 'Printer jams');
    assert.equal(hit?.content, 'The third floor printer jams on glossy paper, daily');
    assert.deepEqual((await ingest(...args)).summary.unchanged, 2);
    assert.match(await fails(['ingest', path.join(dir, 'tickets.csv'), '--id-column', 'nope']), /--?id column 'nope' is not one of: ticket, subject, body, opened, link|id column 'nope'/);
  });

  it('ingests the flattened Slack JSONL with mapped fields; unmapped, its unknown fields are refused with a hint', async () => {
    const refused = await fails(['ingest', SLACK_JSONL, '--no-embed']);
    assert.match(refused, /unknown fields 'channel'/);
    assert.match(refused, /map them with --id-column/);
    const { summary } = await ingest(SLACK_JSONL, '--id-column', '_id', '--title-column', 'channel', '--text-column', 'text', '--author-column', 'user');
    assert.ok(summary.added > 50, JSON.stringify(summary));
  });

  it('says so and exits non-zero for a folder with nothing to ingest, and refuses column flags for a folder', async () => {
    assert.match(await fails(['ingest', path.join(dir, 'pictures'), '--no-embed']), /pictures: nothing to ingest/);
    assert.match(await fails(['ingest', path.join(dir, 'slack-folder', 'enrique'), '--id-column', 'x']), /map CSV and JSONL files, not a folder/);
    assert.match(await fails(['ingest', path.join(dir, 'tickets.csv.zip')]), /no such file/);
    await fs.writeFile(path.join(dir, 'broken.zip'), 'not a zip');
    assert.match(await fails(['ingest', path.join(dir, 'broken.zip')]), /not a readable zip archive/);
  });
});
