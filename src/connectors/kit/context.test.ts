import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { vendorFetch } from './context.ts';

describe('vendor requests', () => {
  it('give up after the per-request timeout instead of hanging on a vendor that never answers', async () => {
    const server = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const f = vendorFetch(async () => undefined, new AbortController().signal, 200);
      const started = Date.now();
      await assert.rejects(f(`http://127.0.0.1:${port}/hang`), (err: Error) => [err.name, (err.cause as Error | undefined)?.name].includes('TimeoutError'));
      assert.ok(Date.now() - started < 5_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
