import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { describe, it } from 'node:test';
import { generateClientSchema, SCHEMA_FILE } from '../../scripts/generate-client.ts';

describe('packages/client/src/schema.d.ts', () => {
  it('is what `npm run generate:client` makes from the served OpenAPI document (regenerate when this fails)', async () => {
    const committed = await fs.readFile(SCHEMA_FILE, 'utf8');
    const fresh = await generateClientSchema();
    if (committed !== fresh) {
      const a = committed.split('\n');
      const b = fresh.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      assert.fail(`the committed schema is stale (first difference at line ${line + 1}: ${JSON.stringify(a[line])} vs ${JSON.stringify(b[line])}): run \`npm run generate:client\` and commit packages/client/src/schema.d.ts`);
    }
  });
});
