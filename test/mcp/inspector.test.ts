import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parseSelfHostedConfig, type SelfHostedServer, startSelfHostedServer } from '../../src/mcp/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';
import { BIN } from '../support/spawn.ts';
import { addConnector, listen } from './support.ts';

const run = promisify(execFile);
// The MCP Inspector's CLI (0.15.x): an independent client implementation driving our server.
const INSPECTOR = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');

async function inspect(args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
  return JSON.parse(stdout);
}

describe('MCP Inspector CLI against Atrium', () => {
  let t: TestApp;
  let service: string;
  let apiKey: string;
  let mcp: SelfHostedServer;
  before(async () => {
    t = await createTestApp();
    service = await listen(t);
    await addConnector(t, 'linear-team42', 'default', 'linear');
    apiKey = (await t.keyWith(['query', 'connector:read'])).authorization.slice('Bearer '.length);
    mcp = await startSelfHostedServer(parseSelfHostedConfig({ port: 0, service_base_url: service, service_api_key: apiKey }, {}), silentLog);
  });
  after(async () => {
    await mcp?.close();
    await t.close();
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
