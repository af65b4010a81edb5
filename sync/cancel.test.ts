// Stopping a sync (SyncOptions.signal; Ctrl-C in the CLI): nothing new is sent, the batches out finish and are
// booked, nothing is left in flight or uncertain, the lock is released, and the next sync sends the rest once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { farmOnService, posts, recordingEngine, refCounts, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import { SYNC_LOCK } from '../db/settings.ts';
import { runCli } from '../cli/main.ts';
import { mkdtempSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { ROOT } from '../test/helpers/process.ts';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

const states = (acc: string) => Object.fromEntries((w.mirror.syncDb.prepare('SELECT state, count(*) AS n FROM outbox WHERE account_id = ? GROUP BY state').all(acc) as { state: string; n: number }[]).map((r) => [r.state, r.n]));

describe('a sync stopped halfway', () => {
  it('books what was out, leaves the rest queued, releases the lock; the next sync sends the rest, each parcel once', async () => {
    const { acc, farm } = await farmOnService(w, 'Stopped farm');
    w.mirror.write.createParcels(farm.local_id, parcelInputs(400, 'stop'));
    const controller = new AbortController();
    const log: SentRequest[] = [];
    // Stopped as soon as the first batch is booked: with two batches in flight, one more is out at that moment.
    const engine = recordingEngine(w, log, { sync: { signal: controller.signal, onProgress: (e) => { if (e.phase === 'parcels' && e.done >= 50) controller.abort(); } } });
    const [report] = (await engine.sync({ accounts: [acc] })).accounts;
    expect(report).toMatchObject({ cancelled: true, error: 'cancelled', synced: false });
    const sent = posts(log, '/api/parcels/').length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(8);
    expect(report!.committed).toBe(sent * 50);
    expect(states(acc)).toEqual({ committed: 1 + sent * 50, queued: 400 - sent * 50 });
    expect(w.mirror.syncDb.prepare('SELECT count(*) FROM settings WHERE key = ?').pluck().get(SYNC_LOCK)).toBe(0);
    // Nothing sent after the stop: the pull did not run either.
    expect(log.filter((r) => r.method === 'GET')).toEqual([]);

    const [again] = (await recordingEngine(w, []).sync({ accounts: [acc] })).accounts;
    expect(again).toMatchObject({ synced: true, cancelled: false });
    const onService = await serviceParcels(w, acc, farm.server_id!);
    expect(onService).toHaveLength(400);
    expect([...refCounts(onService).values()].every((n) => n === 1)).toBe(true);
  });

  it('stopped before it starts, it sends nothing; a wait for a retry is cut short too', async () => {
    const { acc, farm } = await farmOnService(w, 'Never started');
    w.mirror.write.createParcels(farm.local_id, parcelInputs(3, 'never'));
    const log: SentRequest[] = [];
    const [report] = (await recordingEngine(w, log, { sync: { signal: AbortSignal.abort() } }).sync({ accounts: [acc] })).accounts;
    expect(report).toMatchObject({ cancelled: true, committed: 0 });
    expect(log).toEqual([]);
    expect(states(acc)).toEqual({ committed: 1, queued: 3 });

    // A 503 sends the batch back to wait for its retry; the stop ends that wait at once, not after it.
    await w.fault('POST /api/parcels/', 'error', { status: 503, count: 5 });
    const controller = new AbortController();
    const t0 = Date.now();
    setTimeout(() => controller.abort(), 300);
    const [waited] = (await recordingEngine(w, [], { sync: { signal: controller.signal, backoffBaseMs: 10_000, backoffCapMs: 10_000 } }).sync({ accounts: [acc] })).accounts;
    expect(waited).toMatchObject({ cancelled: true });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(states(acc)).toEqual({ committed: 1, queued: 3 });
  });

  it('the CLI says it stopped as asked and exits 130', async () => {
    const home = mkdtempSync(join(w.dir, 'cancel-home-'));
    const acc = (await w.api('POST', '/api/accounts/', { account_email: `cancel${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
    let out = '';
    const io = { env: { FURROW_HOME: home }, stdout: { write: (s: string) => { out += s; } }, stderr: { write: (s: string) => { out += s; } } };
    expect(await runCli(['connect', '--service', w.svc.url, '--api-key', w.apiKey, '--account', acc], io)).toBe(0);
    const m = Mirror.open(join(home, 'mirror.db'));
    m.write.createFarm(acc, 'CLI stopped');
    m.close();
    out = '';
    expect(await runCli(['sync'], { ...io, interrupt: () => AbortSignal.abort() })).toBe(130);
    expect(out).toMatch(new RegExp(`^${acc}: stopped as asked\\. 0 changes acknowledged by the service\\. 1 change still waiting, none lost\\. Pull not done\\. Run sync again to go on\\.$`, 'm'));
    expect(await runCli(['sync'], io)).toBe(0);
  });

  it('Ctrl-C in `npm run -s cli -- sync` stops it the same way: exit 130, the rest queued, the lock released', async () => {
    const home = mkdtempSync(join(w.dir, 'sigint-home-'));
    const acc = (await w.api('POST', '/api/accounts/', { account_email: `sigint${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
    const quiet = { write: () => {} };
    expect(await runCli(['connect', '--service', w.svc.url, '--api-key', w.apiKey, '--account', acc], { env: { FURROW_HOME: home }, stdout: quiet, stderr: quiet })).toBe(0);
    const m = Mirror.open(join(home, 'mirror.db'));
    const farm = m.write.createFarm(acc, 'Interrupted');
    m.write.createParcels(farm.local_id, parcelInputs(2000, 'sigint'));
    const child = spawn(process.execPath, [join(ROOT, 'scripts/cli.mjs'), 'sync'], { cwd: ROOT, env: { ...process.env, FURROW_HOME: home } });
    let out = '';
    let interrupted = false;
    const onData = (d: Buffer) => {
      out += d.toString();
      // Once parcels are going out (the farm is on the service), as a user would press Ctrl-C.
      if (!interrupted && / parcels \d+\//.test(out)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const status = await new Promise<number | null>((r) => child.on('close', r));
    expect(interrupted, out).toBe(true);
    expect(status, out).toBe(130);
    expect(out).toMatch(/Stopping after the requests under way/);
    expect(out).toMatch(new RegExp(`${acc}: stopped as asked\\.`));
    const left = m.syncDb.prepare("SELECT state, count(*) AS n FROM outbox WHERE account_id = ? AND state <> 'committed' GROUP BY state").all(acc) as { state: string; n: number }[];
    expect(left.map((r) => r.state)).toEqual(['queued']);
    expect(m.syncDb.prepare('SELECT count(*) FROM settings WHERE key = ?').pluck().get(SYNC_LOCK)).toBe(0);
    m.close();
  }, 60_000);
});
