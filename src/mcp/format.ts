import type { ConnectorListItem } from '../connectors/index.ts';
import type { StoredDocument } from '../documents/index.ts';
import type { ToolOutput } from './backend.ts';

/** The parts of a federated query answer the text rendering reads; the whole answer is the structured content. */
export interface QueryAnswer {
  readonly items: readonly QueryItem[];
  readonly [key: string]: unknown;
}

export interface QueryItem {
  readonly id: string;
  readonly content: string;
  readonly source_node: string;
  readonly relevance_score: number;
  readonly title?: string | null;
  readonly url?: string | null;
  readonly temporal_status?: string;
  readonly suppressed_by_tombstone?: boolean;
  readonly metadata?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

const SNIPPET = 600;

function snippet(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET)}…` : flat;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

export function formatQueryAnswer(answer: QueryAnswer): ToolOutput {
  if (answer.items.length === 0) {
    return { text: 'No results. Try other words, fewer sources, or check list_connectors for what is connected.', structured: { ...answer } };
  }
  const lines = answer.items.map((item, i) => {
    const title = str(item.title) ?? str(item.metadata?.title) ?? '(untitled)';
    const url = str(item.url) ?? str(item.metadata?.url);
    const when = str(item.metadata?.updated_at) ?? str(item.metadata?.timestamp) ?? str(item.metadata?.created_at);
    const documentId = str(item.metadata?.document_id) ?? item.id;
    const facts = [
      `source ${item.source_node}`,
      `relevance ${item.relevance_score.toFixed(2)}`,
      when ? `updated ${when}` : undefined,
      item.temporal_status,
      item.suppressed_by_tombstone ? 'FORGOTTEN (suppressed by a forget request)' : undefined,
    ].filter(Boolean);
    return [`${i + 1}. ${title} [document_id: ${documentId}] (${facts.join(', ')})`, url ? `   ${url}` : undefined, `   ${snippet(item.content)}`, why(item.reasoning)]
      .filter(Boolean)
      .join('\n');
  });
  return { text: `${answer.items.length} result(s):\n\n${lines.join('\n\n')}`, structured: { ...answer } };
}

/** One line of an item's score components (includeReasoning), or undefined without them. */
function why(reasoning: unknown): string | undefined {
  if (!reasoning || typeof reasoning !== 'object') return undefined;
  const r = reasoning as Record<string, unknown>;
  const num = (k: string) => (typeof r[k] === 'number' ? (r[k] as number).toFixed(2) : '—');
  const signals = Array.isArray(r.critical_signals) && r.critical_signals.length ? `, critical: ${r.critical_signals.join('; ')}` : '';
  return `   why: match ${num('match')} (semantic ${num('semantic')}, lexical ${num('lexical')}), decay ${num('decay')}, intent fit ${num('intent_fit')}${signals}`;
}

/** The stored-document fields the rendering reads; the whole view is the structured content. */
export type DocumentView = Pick<StoredDocument, 'id' | 'title' | 'content' | 'url' | 'source_node' | 'author' | 'created_at' | 'updated_at' | 'metadata'> & {
  readonly [key: string]: unknown;
};

export function formatDocument(doc: DocumentView): ToolOutput {
  const header = [
    `# ${doc.title || '(untitled)'}`,
    `document_id: ${doc.id}`,
    `source: ${doc.source_node}`,
    doc.url ? `url: ${doc.url}` : undefined,
    doc.author ? `author: ${doc.author}` : undefined,
    doc.created_at ? `created: ${doc.created_at}` : undefined,
    doc.updated_at ? `updated: ${doc.updated_at}` : undefined,
  ].filter(Boolean);
  return { text: `${header.join('\n')}\n\n${doc.content}`, structured: { document: { ...doc } } };
}

export function formatConnectors(connectors: readonly ConnectorListItem[]): ToolOutput {
  if (connectors.length === 0) return { text: 'No connectors are configured.', structured: { connectors: [] } };
  const lines = connectors.map(
    (c) =>
      `- ${c.display_name} (connector_id: ${c.connector_id}, type ${c.connector_type}): ${c.status}, ` +
      `${c.document_count} document(s), last sync ${c.last_sync_at ?? 'never'}`,
  );
  return { text: `${connectors.length} connector(s):\n${lines.join('\n')}`, structured: { connectors: [...connectors] } };
}

export interface ActionCallView {
  readonly action: string;
  readonly parameters: Record<string, unknown>;
  readonly status: string;
  readonly result?: Record<string, unknown>;
  readonly error?: string;
}

export interface ActionResultView {
  readonly connector_id: string;
  readonly intent: string;
  readonly planner: string;
  readonly dry_run: boolean;
  readonly calls: readonly ActionCallView[];
}

/** An executed action; a failed call makes the whole result an error the model sees, with every call kept. */
export function formatActionResult(r: ActionResultView): ToolOutput {
  const lines = r.calls.map((c) => {
    const outcome = c.status === 'failed' ? `FAILED: ${c.error ?? 'unknown error'}` : c.status;
    const result = c.result ? ` → ${JSON.stringify(c.result)}` : '';
    return `- ${c.action}(${JSON.stringify(c.parameters)}): ${outcome}${result}`;
  });
  const failed = r.calls.some((c) => c.status === 'failed');
  const head = failed ? `An action on ${r.connector_id} failed` : `Done on ${r.connector_id}`;
  return {
    text: `${head} (${r.calls.length} call(s), planned by ${r.planner}):\n${lines.join('\n')}`,
    structured: { ...r, calls: [...r.calls] },
    ...(failed ? { isError: true } : {}),
  };
}
