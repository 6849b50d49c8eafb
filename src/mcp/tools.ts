import { z } from 'zod';
import { can, type Permission, type Principal } from '../access/index.ts';
import { filtersSchema, intentSignalSchema } from '../federation/request.ts';

/**
 * The MCP tool catalogue, as the interface spec's table (query_knowledge also takes the federated query's
 * client-side options; unknown arguments are refused, naming them). Each tool names the permission
 * it needs: a caller without it never sees the tool, and calling it fails like an unknown tool.
 */
export const toolInputs = {
  query_knowledge: z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .describe('What to look for, in natural language: a question or a few keywords ("on-call rotation for payments", "Q3 churn numbers").'),
    sources: z
      .array(z.string().min(1).max(200))
      .min(1, 'sources must name at least one source (omit it to search every source)')
      .max(50)
      .optional()
      .describe('Restrict the search to these connector ids (from list_connectors). Omit to search every source the key may see.'),
    limit: z.number().int().min(1).max(50).default(5).describe('How many results to return (1-50, default 5).'),
    // The federated query's client-side options (spec, "Federated query"), passed on as POST /v1/federate takes them.
    includeReasoning: z.boolean().optional().describe('Explain each result: its score components (match, decay, intent fit, critical signals).'),
    include_reasoning: z.boolean().optional().describe('Same as includeReasoning.'),
    filters: filtersSchema
      .optional()
      .describe(
        'Narrow the results: dateRange {after, before} (ISO 8601 timestamps, or YYYY-MM-DD dates meaning whole days, UTC; on the last update), ' +
          'authors (list), types or document_type (e.g. issue, message, page), connector_type (e.g. github, slack).',
      ),
    intent_signal: intentSignalSchema
      .optional()
      .describe('Override the intent inferred from the query: any of urgency, emotional_weight, action_likelihood, social_dimension, context_sensitivity, each 0..1.'),
  }).strict(),
  get_document: z.object({
    document_id: z
      .string()
      .min(1)
      .max(200)
      .describe('The id of a document (`doc_…`), as returned in query_knowledge results.'),
  }),
  list_connectors: z.object({}),
  execute_action: z.object({
    connector_id: z.string().min(1).max(200).describe('The connector to act on (from list_connectors), e.g. `github-a1b2c3`.'),
    intent: z
      .string()
      .trim()
      .min(1)
      .max(4000)
      .describe('What to do on the connected tool, in natural language ("create an issue titled … in repo …").'),
    context: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Optional structured details for the action (ids, field values) that make the intent unambiguous.'),
  }),
} as const;

export type ToolName = keyof typeof toolInputs;
export type ToolArgs<N extends ToolName> = z.output<(typeof toolInputs)[N]>;

export interface ToolDefinition {
  readonly name: ToolName;
  readonly title: string;
  readonly description: string;
  readonly permission: Permission;
  readonly readOnly: boolean;
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'query_knowledge',
    title: 'Search organizational knowledge',
    description:
      'Search every connected source (documents, chat, issues, code…) with one federated query and get the most relevant passages, ' +
      'each with its document id, source, relevance score and timestamp. Use get_document with a result id to read the whole document.',
    permission: 'query',
    readOnly: true,
  },
  {
    name: 'get_document',
    title: 'Read a document',
    description:
      'Fetch one document in full by id: title, content, url, source connector, author, timestamps and metadata. ' +
      'Ids come from query_knowledge results or the atrium://recent resource.',
    permission: 'query',
    readOnly: true,
  },
  {
    name: 'list_connectors',
    title: 'List connected sources',
    description:
      'List the connected tools (connectors) with their id, type, display name, sync status, last sync time and document count. ' +
      'Use the ids to narrow query_knowledge (sources) or to target execute_action.',
    permission: 'connector:read',
    readOnly: true,
  },
  {
    name: 'execute_action',
    title: 'Act on a connected tool',
    description:
      'Carry out a natural-language action on a connected tool (for example create an issue or post a message) through its connector. ' +
      'This changes data in that tool: state the intent precisely and pass known ids in context.',
    permission: 'connector:write',
    readOnly: false,
  },
];

const byName = new Map<string, ToolDefinition>(TOOLS.map((t) => [t.name, t]));

/** The tools a caller may use, in catalogue order. */
export function toolsFor(caller: Pick<Principal, 'permissions'>): ToolDefinition[] {
  return TOOLS.filter((t) => can(caller, t.permission));
}

/** The tool by name if the caller may use it; undefined both for unknown names and for tools the caller lacks. */
export function findTool(caller: Pick<Principal, 'permissions'>, name: string): ToolDefinition | undefined {
  const t = byName.get(name);
  return t && can(caller, t.permission) ? t : undefined;
}

/** JSON Schema of a tool's input, as MCP `inputSchema`. */
export function inputJsonSchema(name: ToolName): { type: 'object'; [k: string]: unknown } {
  const schema = z.toJSONSchema(toolInputs[name], { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return { ...schema, type: 'object' };
}

/** The REST wrapper's flat parameter map: `{name: {type, required?, description?}}`. */
export function restParameters(name: ToolName): Record<string, { type: string; required?: boolean; description?: string }> {
  const schema = inputJsonSchema(name);
  const props = (schema.properties ?? {}) as Record<string, JsonSchemaProperty>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.fromEntries(
    Object.entries(props).map(([k, p]) => [
      k,
      { type: specType(p), ...(required.has(k) ? { required: true } : {}), ...(p.description ? { description: p.description } : {}) },
    ]),
  );
}

interface JsonSchemaProperty {
  readonly type?: string;
  readonly description?: string;
  readonly items?: JsonSchemaProperty;
}

/** Type names as the spec's tool table writes them: `string`, `string[]`, `number`, `object`. */
function specType(p: JsonSchemaProperty): string {
  if (p.type === 'array') return `${p.items ? specType(p.items) : 'unknown'}[]`;
  if (p.type === 'integer') return 'number';
  return p.type ?? 'object';
}
