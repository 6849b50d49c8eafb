// `npm run bench -- mcp`: MCP tool-call latency per surface (SDK clients over Streamable HTTP, both revisions, the WebSocket
// transport, REST invoke, the self-hosted server forwarding to the service) on an embedded in-memory store
// with MCP_BENCH_DOCS small documents (default 2000). Sequential calls: latency, not saturation.
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import WebSocket from 'ws';
import { createApiKey } from '../src/access/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { upsertDocuments } from '../src/documents/index.ts';
import { createRuntime } from '../src/main/runtime.ts';
import { parseSelfHostedConfig, startSelfHostedServer, WebSocketTransport } from '../src/mcp/index.ts';
import { openPglite } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';
import { machineLine, writeBenchSection } from './report.ts';

const DOCS = Number(process.env.MCP_BENCH_DOCS ?? 2000);
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 200);
const log = createLogger({ level: 'silent' });
const WORDS = 'deploy incident rotation payments billing roadmap migration latency review release budget hiring onboarding security audit'.split(' ');

const db = await openPglite('memory://');
const config = loadConfig({
  ATRIUM_DATA_DIR: '/tmp/atrium-bench-unused',
  ATRIUM_SECRET_KEY: 'bench-secret',
  LOG_LEVEL: 'silent',
  ATRIUM_RATE_LIMIT_PER_MINUTE: '1000000',
  ATRIUM_RATE_LIMIT_BURST: '1000000',
  ATRIUM_FEDERATION_CACHE_TTL_MS: '0',
});
const rt = await createRuntime(config, log, { db });
await db.query(`INSERT INTO tenants (id, name) VALUES ('default', 'default') ON CONFLICT DO NOTHING`);
await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ('notion-bench', 'default', 'notion', 'Notion', 'idle')`);
for (let i = 0; i < DOCS; i += 500) {
  const documents = Array.from({ length: Math.min(500, DOCS - i) }, (_, j) => {
    const n = i + j;
    const body = Array.from({ length: 60 }, (_, k) => WORDS[(n * 7 + k * 3) % WORDS.length]).join(' ');
    return { external_id: `p-${n}`, title: `Page ${n} ${WORDS[n % WORDS.length]}`, content: body };
  });
  await upsertDocuments(rt.deps, { tenantId: 'default', connectorId: 'notion-bench', documents });
}
const key = (await createApiKey(db, { tenantId: 'default', name: 'bench', permissions: ['query', 'connector:read'] })).key;
await rt.app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(rt.app.server.address() as AddressInfo).port}`;
const auth = { authorization: `Bearer ${key}` };

type Call = () => Promise<unknown>;
async function measure(call: Call): Promise<{ p50: number; p95: number; perSecond: number }> {
  for (let i = 0; i < 10; i++) await call();
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  const total = performance.now() - start;
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p95: at(0.95), perSecond: (CALLS / total) * 1000 };
}

const http = new Client({ name: 'bench', version: '1' });
await http.connect(new StreamableHTTPClientTransport(new URL('/v1/expose/mcp', base), { requestInit: { headers: auth } }));
const modern = new V2Client({ name: 'bench-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await modern.connect(new V2Transport(new URL('/v1/expose/mcp', base), { requestInit: { headers: auth } }));
const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`, ['mcp'], { headers: auth });
await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
const wsc = new Client({ name: 'bench-ws', version: '1' });
await wsc.connect(new WebSocketTransport(ws));
const selfHosted = await startSelfHostedServer(parseSelfHostedConfig({ port: 0, service_base_url: base, service_api_key: key, rate_limit: { requests_per_minute: 1_000_000 } }, {}), log);
const fwd = new Client({ name: 'bench-fwd', version: '1' });
await fwd.connect(new StreamableHTTPClientTransport(new URL('/mcp', selfHosted.url)));

const list = { name: 'list_connectors', arguments: {} };
const query = { name: 'query_knowledge', arguments: { query: 'payments incident rotation', limit: 5 } };
const rest = (tool: string, parameters: object) => async () => {
  const r = await fetch(`${base}/v1/expose/mcp/invoke`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ tool, parameters }) });
  await r.json();
};
// Raw requests (no SDK client): the server's own per-request cost on each Streamable HTTP revision.
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const mcpHeaders = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = await fetch(`${base}/v1/expose/mcp`, {
  method: 'POST',
  headers: mcpHeaders,
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
});
const rawSession = { ...mcpHeaders, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
await init.text();
const raw = (headers: Record<string, string>, params: Record<string, unknown>) => async () => {
  const r = await fetch(`${base}/v1/expose/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params }) });
  await r.text();
};
const rawModern = { ...mcpHeaders, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_connectors' };
const rows: [string, string, Call][] = [
  ['raw fetch, 2025-11-25 session', 'list_connectors', raw(rawSession, list)],
  ['raw fetch, 2026-07-28 stateless', 'list_connectors', raw(rawModern, { ...list, _meta: MODERN_META })],
  ['Streamable HTTP 2025-11-25 session (1.x client)', 'list_connectors', () => http.callTool(list)],
  ['Streamable HTTP 2026-07-28 stateless (v2 client)', 'list_connectors', () => modern.callTool(list)],
  ['WebSocket (SDK client)', 'list_connectors', () => wsc.callTool(list)],
  ['REST POST /v1/expose/mcp/invoke', 'list_connectors', rest('list_connectors', {})],
  ['self-hosted → service (Streamable HTTP)', 'list_connectors', () => fwd.callTool(list)],
  ['Streamable HTTP 2025-11-25 session (1.x client)', 'query_knowledge', () => http.callTool(query)],
  ['Streamable HTTP 2026-07-28 stateless (v2 client)', 'query_knowledge', () => modern.callTool(query)],
  ['WebSocket (SDK client)', 'query_knowledge', () => wsc.callTool(query)],
  ['REST POST /v1/expose/mcp/invoke', 'query_knowledge', rest('query_knowledge', { query: 'payments incident rotation', limit: 5 })],
  ['self-hosted → service (Streamable HTTP)', 'query_knowledge', () => fwd.callTool(query)],
];
const lines = ['| surface | tool | p50 ms | p95 ms | calls/s (sequential) |', '|---|---|---|---|---|'];
for (const [surface, tool, call] of rows) {
  const m = await measure(call);
  lines.push(`| ${surface} | ${tool} | ${m.p50.toFixed(1)} | ${m.p95.toFixed(1)} | ${m.perSecond.toFixed(0)} |`);
  console.error(lines.at(-1));
}
await Promise.all([http.close(), modern.close(), wsc.close(), fwd.close()]);
await selfHosted.close();
await rt.close();

await writeBenchSection(
  'mcp',
  [
    '## MCP tool calls',
    '',
    machineLine(),
    '',
    `Command: \`npm run bench -- mcp\` (MCP_BENCH_DOCS=${DOCS}, MCP_BENCH_CALLS=${CALLS}). In-memory PGlite, ${DOCS} documents in one`,
    'source, lexical retrieval (no embedding model loaded), federation cache off, one client calling sequentially;',
    'every call also writes its `mcp.tool_invoked` audit row. Each call takes one round trip through the whole',
    'stack (auth, rate limit, validation, tool, audit), so the numbers are per-call overhead plus the tool itself.',
    'Both Streamable HTTP revisions build a fresh SDK server per request (no per-process state); a 2025 session request',
    'also checks and renews its `mcp_sessions` row. The raw fetch rows (no SDK client) show the server\'s share.',
    '',
    ...lines,
  ].join('\n'),
);
