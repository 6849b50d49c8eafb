// Writes the README's connector list (between <!-- connector-list --> markers) from the catalogue, so the README
// names exactly the registered kinds: `node --import tsx scripts/connector-list.ts` (test/structure checks it).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listKinds } from '../src/connectors/index.ts';

const GROUPS: Record<string, string> = {
  productivity: 'Productivity',
  developer_tools: 'Developer tools',
  crm: 'CRM and sales',
  support: 'Support',
  llm_providers: 'LLM providers',
  other: 'Other',
};

export function connectorList(): string {
  const by = new Map<string, string[]>();
  for (const k of listKinds()) by.set(k.group, [...(by.get(k.group) ?? []), `\`${k.type}\` (${k.displayName})`]);
  const lines = Object.entries(GROUPS)
    .filter(([g]) => by.has(g))
    .map(([g, label]) => `- **${label}** (${by.get(g)?.length}): ${by.get(g)?.join(', ')}`);
  return [`${listKinds().length} kinds (${listKinds().filter((k) => k.group !== 'other').length} SaaS):`, '', ...lines].join('\n');
}

export const README = path.resolve(import.meta.dirname, '../README.md');
const START = '<!-- connector-list -->';
const END = '<!-- /connector-list -->';

export function withConnectorList(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error('README has no connector-list markers');
  return `${readme.slice(0, a + START.length)}\n${connectorList()}\n${readme.slice(b)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync(README, withConnectorList(readFileSync(README, 'utf8')));
