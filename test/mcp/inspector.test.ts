import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from '../support/app.ts';
import { BIN, freePort } from '../support/spawn.ts';
import { addConnector, listen } from './support.ts';

const run = promisify(execFile);
// The MCP Inspector's CLI (0.15.x): an independent client implementation driving our server.
const INSPECTOR = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');

async function inspect(args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
  return JSON.parse(stdout);
}

describe('MCP Inspector CLI against `atrium mcp-server` and `atrium mcp --stdio`', () => {
  let t: TestApp;
  let service: string;
  let apiKey: string;
  let mcp: { url: string; child: ChildProcess };
  let dir: string;
  before(async () => {
    t = await createTestApp();
    service = await listen(t);
    await addConnector(t, 'linear-team42', 'default', 'linear');
    apiKey = (await t.keyWith(['query', 'connector:read'])).authorization.slice('Bearer '.length);
    // The self-hosted server as users start it: `atrium mcp-server --config file.json`, key from the environment.
    dir = await mkdtemp(path.join(os.tmpdir(), 'atrium-mcp-server-'));
    const port = await freePort();
    const configFile = path.join(dir, 'mcp-server.json');
    await writeFile(configFile, JSON.stringify({ port, service_base_url: service, rate_limit: { requests_per_minute: 600 } }));
    const child = spawn(process.execPath, [BIN, 'mcp-server', '--config', configFile], {
      env: { ...process.env, ATRIUM_API_KEY: apiKey, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    mcp = { url: `http://127.0.0.1:${port}`, child };
    for (let i = 0; ; i++) {
      const ok = await fetch(`${mcp.url}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 600 || child.exitCode !== null) throw new Error('atrium mcp-server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    if (mcp && mcp.child.exitCode === null) {
      const exited = new Promise((r) => mcp.child.once('exit', r));
      mcp.child.kill('SIGTERM');
      await exited;
    }
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists and calls tools and reads a resource over Streamable HTTP', async () => {
    const list = (await inspect([`${mcp.url}/mcp`, '--method', 'tools/list'])) as { tools: { name: string; inputSchema: { required?: string[] } }[] };
    assert.deepEqual(list.tools.map((x) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
    assert.deepEqual(list.tools[0]!.inputSchema.required, ['query']);
    const call = (await inspect([`${mcp.url}/mcp`, '--method', 'tools/call', '--tool-name', 'list_connectors'])) as { content: { text: string }[] };
    assert.match(call.content[0]!.text, /linear-team42/);
    const search = (await inspect([`${mcp.url}/mcp`, '--method', 'tools/call', '--tool-name', 'query_knowledge', '--tool-arg', 'query=roadmap'])) as {
      isError?: boolean;
      structuredContent: { items: unknown[] };
    };
    assert.notEqual(search.isError, true);
    assert.deepEqual(search.structuredContent.items, []);
    const read = (await inspect([`${mcp.url}/mcp`, '--method', 'resources/read', '--uri', 'atrium://connectors'])) as { contents: { text: string }[] };
    assert.match(read.contents[0]!.text, /linear-team42/);
  });

  it('lists tools over stdio (`atrium mcp --stdio`)', async () => {
    const list = (await inspect([process.execPath, '--method', 'tools/list', '--', BIN, 'mcp', '--stdio', '--url', service], {
      ATRIUM_API_KEY: apiKey,
      LOG_LEVEL: 'silent',
    })) as { tools: { name: string }[] };
    assert.deepEqual(list.tools.map((x) => x.name), ['query_knowledge', 'get_document', 'list_connectors']);
  });
});
