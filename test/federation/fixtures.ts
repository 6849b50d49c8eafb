import type { DocumentInput } from '../../src/documents/index.ts';
import { upsertDocuments } from '../../src/documents/index.ts';
import type { TestApp } from '../support/app.ts';

export const NOW = new Date('2026-06-01T12:00:00Z');
export const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();

/** Creates a connector row (a local source) directly: these tests exercise the query, not connector setup. */
export async function addConnector(t: TestApp, id: string, type: string, tenant = 'default'): Promise<void> {
  await t.db.query(
    `INSERT INTO connectors (id, tenant_id, connector_type, display_name, status) VALUES ($1, $2, $3, $4, 'idle')`,
    [id, tenant, type, `${type} ${id}`],
  );
}

export async function addDocs(t: TestApp, connectorId: string, documents: DocumentInput[], tenant = 'default'): Promise<string[]> {
  const r = await upsertDocuments(t.deps, { tenantId: tenant, connectorId, documents, embed: 'inline' });
  return r.documents.map((d) => d.id);
}

/** A small engineering corpus over two sources with known ages, types, authors and priorities. */
export interface Corpus {
  readonly outage: string;
  readonly retry: string;
  readonly wiki: string;
  readonly alerts: string;
  readonly lunch: string;
}

export async function seedCorpus(t: TestApp): Promise<Corpus> {
  await addConnector(t, 'github-eng', 'github');
  await addConnector(t, 'slack-ops', 'slack');
  const gh = await addDocs(t, 'github-eng', [
    {
      external_id: 'issue-1',
      title: 'Checkout outage: payment service returns 502',
      content: 'The payment service fails during checkout. Payments are down for all customers since the deploy.',
      document_type: 'issue',
      author: 'alice',
      updated_at: daysAgo(2),
      metadata: { priority: 'P0', repository: 'shop' },
      url: 'https://example.test/shop/issues/1',
    },
    {
      external_id: 'issue-2',
      title: 'Refactor payment retry logic',
      content: 'Payment retries should use exponential backoff. The payment client retries too aggressively.',
      document_type: 'issue',
      author: 'bob',
      updated_at: daysAgo(15),
      metadata: { priority: 'low' },
    },
    {
      external_id: 'wiki-1',
      title: 'Payment architecture overview',
      content: 'How payment processing works: the gateway, the ledger and the payment reconciliation batch.',
      document_type: 'page',
      author: 'carol',
      updated_at: daysAgo(90),
    },
  ]);
  const sl = await addDocs(t, 'slack-ops', [
    {
      external_id: 'msg-1',
      title: '#ops payment alerts',
      content: 'We discussed the payment alerts in the ops channel; the team agreed to page on payment errors.',
      document_type: 'message',
      author: 'dave',
      updated_at: daysAgo(1),
      metadata: { channel: 'ops' },
    },
    {
      external_id: 'msg-2',
      title: '#random lunch',
      content: 'Pizza on Friday for the whole team.',
      document_type: 'message',
      author: 'erin',
      updated_at: daysAgo(3),
      metadata: { channel: 'random' },
    },
  ]);
  return { outage: gh[0]!, retry: gh[1]!, wiki: gh[2]!, alerts: sl[0]!, lunch: sl[1]! };
}
