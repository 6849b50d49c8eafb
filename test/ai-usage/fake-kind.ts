import { z } from 'zod';
import { registerKind } from '../../src/connectors/catalog.ts';
import type { AnyKind, KindDefinition, SourceDocument, UsageRecord } from '../../src/connectors/kit/index.ts';

/**
 * A test-only `llm_providers` kind (`fakeai`), registered in the test process only (never in the catalogue): its pages
 * are whatever the test puts in `fakeAi` — usage buckets and documents — so the real sync engine stores them.
 */
export const fakeAi: { usage: UsageRecord[]; documents: SourceDocument[]; pageSize: number } = { usage: [], documents: [], pageSize: 2 };

const kind: KindDefinition<{ api_key: string }, Record<string, unknown>, { n: number }, { i: number }> = {
  type: 'fakeai',
  displayName: 'Fake AI (test)',
  category: 'llm_provider',
  group: 'llm_providers',
  authTypes: ['api_key'],
  credentials: z.object({ api_key: z.string() }).strict(),
  settings: z.object({}).passthrough(),
  contentTypes: ['usage'],
  vendorLimits: {},
  hasUsableCredentials: () => true,
  validate: async () => ({ ok: true }),
  sync: {
    cursorSchema: z.object({ n: z.number() }),
    pageSchema: z.object({ i: z.number() }),
    start: () => ({ i: 0 }),
    async readPage(_ctx, page) {
      const from = page.i * fakeAi.pageSize;
      const usage = fakeAi.usage.slice(from, from + fakeAi.pageSize);
      const more = from + fakeAi.pageSize < fakeAi.usage.length;
      return { documents: page.i === 0 ? fakeAi.documents : [], usage, next: more ? { i: page.i + 1 } : null, cursor: { n: 1 } };
    },
  },
};

registerKind(kind as AnyKind);
