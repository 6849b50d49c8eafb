import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeZulip, startFakeZulip } from '../fakes/zulip.ts';
import { type KindHarness, kindHarness } from './support.ts';

/** What a person watching a sync sees (issue 26 "progress everywhere"): the job and the run count as they go. */
describe('sync progress in the job and connector APIs', () => {
  let h: KindHarness;
  let zu: FakeZulip;
  before(async () => {
    zu = await startFakeZulip();
    h = await kindHarness('zulip', zu.url);
  });
  after(async () => {
    await h.close();
    await zu.close();
  });

  it('the sync job counts the documents read (done, no total: vendors do not say), the run its pages and counts', async () => {
    const created = await h.create({ credentials: { email: zu.email, api_key: zu.apiKey }, settings: { site_url: 'https://acme.zulipchat.com' } });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().connector_id as string;
    await h.worker.drain();
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.app.inject({ method: 'GET', url: `/v1/jobs/${r.json().job_id}`, headers: h.t.admin })).json();
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const stored = (await h.stored(id)).length;
    assert.ok(stored > 0);
    assert.equal(job.done, stored);
    assert.equal(job.total, null);
    const run = (await h.get(id)).sync_runs[0] as { status: string; batches: number; added: number };
    assert.equal(run.status, 'completed');
    assert.ok(run.batches >= 1, JSON.stringify(run));
    assert.equal(run.added, stored);
    // The start is audited once, by the caller, with the run it started.
    const audit = await h.t.app.inject({ method: 'GET', url: '/v1/audit?action=connector.sync_started', headers: h.t.admin });
    const starts = (audit.json().events as { actor_id: string | null; connector_id: string; run_id: string; trigger: string }[]).filter((e) => e.connector_id === id);
    assert.equal(starts.length, 1, JSON.stringify(starts));
    assert.equal(starts[0]?.run_id, r.json().run_id);
    assert.equal(starts[0]?.trigger, 'manual');
    assert.ok(starts[0]?.actor_id, 'the caller is recorded');
  });
});
