import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import WebSocket from 'ws';
import { WebSocketTransport } from '../../src/mcp/index.ts';
import type { TestApp } from '../support/app.ts';

/** Listens on a free port and returns the base URL. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export async function httpClient(baseUrl: string, authorization: string, path = '/v1/expose/mcp'): Promise<Client> {
  const client = new Client({ name: 'atrium-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(path, baseUrl), { requestInit: { headers: { authorization } } }));
  return client;
}

export async function openSocket(url: string, headers: Record<string, string>, protocols: string[] = ['mcp']): Promise<WebSocket> {
  const ws = new WebSocket(url, protocols, { headers });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  return ws;
}

export async function wsClient(baseUrl: string, authorization: string, path = '/v1/expose/mcp/ws'): Promise<{ client: Client; ws: WebSocket }> {
  const ws = await openSocket(`${baseUrl.replace(/^http/, 'ws')}${path}`, { authorization });
  const client = new Client({ name: 'atrium-test-ws', version: '1.0.0' });
  await client.connect(new WebSocketTransport(ws));
  return { client, ws };
}

/** The status of a refused upgrade. */
export function upgradeStatus(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['mcp'], { headers });
    ws.once('open', () => {
      ws.close();
      reject(new Error('upgrade unexpectedly accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', () => undefined);
  });
}

export async function addConnector(t: TestApp, id: string, tenant = 'default', type = 'github'): Promise<void> {
  await t.db.query('INSERT INTO tenants (id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING', [tenant]);
  await t.db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, $2, $3, $4, 'idle')`, [
    id,
    tenant,
    type,
    `${type} ${id}`,
  ]);
}
