// The push of new parcels writes its outbox by group commit: several batches marked in flight with one commit, the
// answers booked with the next group. What is on disk at any moment must still say what to do after a power cut.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { as, farmOnService, posts, recordingEngine, refCounts, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import { Mirror } from '../db/mirror.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

/** A mirror of its own (a run is left hanging in one test) with a new account whose farm is on the service. */
async function ownMirror(tag: string): Promise<{ mirror: Mirror; file: string; acc: string; farmLocal: string; farmId: number }> {
  const file = join(mkdtempSync(join(w.dir, `${tag}-`)), 'mirror.db');
  const mirror = Mirror.open(file);
  const acc = (await w.api('POST', '/api/accounts/', { account_email: `${tag}-${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
  mirror.write.addAccount({ id: acc, service_url: w.svc.url, mode: 'api_key' });
  const { farm } = await farmOnService(w, `Farm ${tag}`, mirror, acc);
  return { mirror, file, acc, farmLocal: farm.local_id, farmId: farm.server_id! };
}

/**
 * What a power cut would leave: the committed state of the file, read through a connection of its own. An op of a
 * batch marked by its row (db/batch-marks.ts) is in flight; `batchRows` counts those rows.
 */
function durableStates(file: string, withRows = false): Record<string, number> {
  const copy = `${file}.cut-${Math.random().toString(36).slice(2)}`;
  const db = new Database(file, { readonly: true });
  db.exec(`VACUUM INTO '${copy}'`);
  db.close();
  const snap = new Database(copy, { readonly: true });
  const rows = snap.prepare(`SELECT CASE WHEN id IN (SELECT j.value FROM push_batches b, json_each(b.ops) j) THEN 'in_flight' ELSE state END AS state,
    count(*) AS n FROM outbox WHERE entity = 'parcel' GROUP BY 1`).all() as { state: string; n: number }[];
  const batchRows = snap.prepare('SELECT count(*) FROM push_batches').pluck().get() as number;
  snap.close();
  return { ...Object.fromEntries(rows.map((r) => [r.state, r.n])), ...(withRows ? { batchRows } : {}) };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('group commit of the parcel push', () => {
  it('marks two windows of batches in flight, then markAhead more while those are out (in steps, one fsync), and books the answers with the next marks', async () => {
    const m = await ownMirror('group');
    const { created } = m.mirror.write.createParcels(m.farmLocal, parcelInputs(700, 'group'));
    const log: SentRequest[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    // Every request but the second is held at the door: the second is answered, the third fills the window again.
    const gate = async (e: SentRequest, all: readonly SentRequest[]) => { if (posts(all, '/api/parcels/')[1] !== e) await held; };
    const run = recordingEngine(w, log, { mirror: m.mirror, gate, sync: { markAhead: 8 } }).sync({ accounts: [m.acc], pull: false });
    await until(() => posts(log, '/api/parcels/').filter((p) => p.status === 201).length === 1);
    // On disk: the first 4 batches (two windows, so the first requests leave at once and two more are ready when
    // their answers come), the next 8 marked while those were out, the other 2 queued. The second batch's 201 is
    // booked with the marks written after it came (a step of the second group), or waits in memory for the next
    // group's: either way never alone, and a cut before it leaves it in flight, to reconcile.
    await until(() => durableStates(m.file).queued === 100);
    const cut = durableStates(m.file, true);
    const booked = cut.committed ?? 0;
    expect([0, 50]).toContain(booked);
    // Each batch marked by one row: its 50 ops are not written until their answer is booked.
    expect(cut).toEqual({ in_flight: 600 - booked, queued: 100, batchRows: 12 - booked / 50, ...(booked ? { committed: booked } : {}) });
    expect(m.mirror.syncDb.prepare("SELECT count(*) FROM outbox WHERE state = 'in_flight'").pluck().get()).toBe(0);
    // Batch ids are time-ordered: each batch's row follows the one before's in the table's key (a random id put each
    // on a page of its index at random).
    const batches = m.mirror.syncDb.prepare('SELECT id FROM push_batches ORDER BY rowid').pluck().all() as string[];
    expect(new Set(batches).size).toBe(12 - booked / 50);
    expect([...batches].sort()).toEqual(batches);
    release();
    const r = await run;
    expect(r.accounts[0]).toMatchObject({ synced: true, committed: 700 });
    expect(posts(log, '/api/parcels/').map((p) => p.status)).toEqual(Array(14).fill(201));
    expect(durableStates(m.file, true)).toEqual({ committed: 700, batchRows: 0 });
    // Each committed op counts one attempt; its settled batch's id and send time are not written into it.
    expect(m.mirror.syncDb.prepare("SELECT DISTINCT attempts, batch_id, sent_at FROM outbox WHERE entity = 'parcel'").all()).toEqual([{ attempts: 1, batch_id: null, sent_at: null }]);
    const remote = refCounts(await serviceParcels(w, m.acc, m.farmId));
    expect(created.every((c) => remote.get(c.local_id) === 1)).toBe(true);
    m.mirror.close();
  });

  it('marks the next group while the last batches of the one before are out, so the service never waits for a commit', async () => {
    const m = await ownMirror('ahead');
    m.mirror.write.createParcels(m.farmLocal, parcelInputs(600, 'ahead'));
    const log: SentRequest[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    // Batches 7 and 8 are held: the window (2) is full with batches 9 and 10 of the second group still to send.
    const gate = async (e: SentRequest, all: readonly SentRequest[]) => {
      const i = posts(all, '/api/parcels/').indexOf(e);
      if (i === 6 || i === 7) await held;
    };
    const run = recordingEngine(w, log, { mirror: m.mirror, gate, sync: { markAhead: 8 } }).sync({ accounts: [m.acc], pull: false });
    await until(() => posts(log, '/api/parcels/').length === 8 && posts(log, '/api/parcels/').filter((p) => p.status === 201).length === 6);
    // The third group (batches 11–12) was read and marked when two batches of the second were left, before the
    // second group ran out: on disk nothing is queued any more, though batches 9 and 10 have not left yet.
    await until(() => !('queued' in durableStates(m.file)));
    expect(posts(log, '/api/parcels/')).toHaveLength(8);
    release();
    const r = await run;
    expect(r.accounts[0]).toMatchObject({ synced: true, committed: 600 });
    expect(durableStates(m.file)).toEqual({ committed: 600 });
    m.mirror.close();
  });

  it('a power cut after a group was marked: the batches never sent and the one answered but not booked are each on the service once after the restart', async () => {
    const m = await ownMirror('cut');
    const { created } = m.mirror.write.createParcels(m.farmLocal, parcelInputs(500, 'cut'));
    const log: SentRequest[] = [];
    // Only the second request leaves: this run is the one the power cut ends (the others never get out).
    const gate = async (e: SentRequest, all: readonly SentRequest[]) => { if (posts(all, '/api/parcels/')[1] !== e) await new Promise(() => {}); };
    void recordingEngine(w, log, { mirror: m.mirror, gate, sync: { markAhead: 8 } }).sync({ accounts: [m.acc], pull: false });
    await until(() => posts(log, '/api/parcels/').filter((p) => p.status === 201).length === 1);
    // The machine comes back with what was on disk: 10 batches in flight (one of them on the service).
    const restarted = join(mkdtempSync(join(w.dir, 'restarted-')), 'mirror.db');
    const db = new Database(m.file, { readonly: true });
    db.exec(`VACUUM INTO '${restarted}'`);
    db.close();
    const mirror = Mirror.open(restarted);
    const after: SentRequest[] = [];
    let report = await recordingEngine(w, after, { mirror, sync: { settleMs: 100 } }).sync({ accounts: [m.acc], pull: false });
    for (let i = 0; i < 5 && !report.accounts[0]!.synced; i++) {
      await new Promise((r) => setTimeout(r, 150));
      report = await recordingEngine(w, after, { mirror, sync: { settleMs: 100 } }).sync({ accounts: [m.acc], pull: false });
    }
    expect(report.accounts[0]).toMatchObject({ synced: true });
    const remote = refCounts(await serviceParcels(w, m.acc, m.farmId));
    expect(created.every((c) => remote.get(c.local_id) === 1)).toBe(true);
    expect(remote.size).toBe(500);
    // The answered batch was found by reference, never sent again: 9 creates after the restart, not 10.
    expect(posts(after, '/api/parcels/').filter((p) => p.status === 201)).toHaveLength(9);
    mirror.close();
  });
  it('a mark refused partway through a group (the disk full): none of that group leaves, none is left in flight, and the next sync sends each once', async () => {
    const m = await ownMirror('markfail');
    const { created } = m.mirror.write.createParcels(m.farmLocal, parcelInputs(600, 'markfail'));
    const db = m.mirror.syncDb;
    // The fifth batch's mark (the second group's third) is refused by SQLite, as a full disk would refuse it: a
    // trigger of the engine's connection.
    db.exec(`CREATE TEMP TABLE marks_tried (n INTEGER); INSERT INTO marks_tried VALUES (0);
      CREATE TEMP TRIGGER mark_refused BEFORE INSERT ON main.push_batches BEGIN
        UPDATE marks_tried SET n = n + 1;
        SELECT RAISE(ABORT, 'database or disk is full') WHERE (SELECT n FROM marks_tried) >= 5;
      END;`);
    const log: SentRequest[] = [];
    const failed = await recordingEngine(w, log, { mirror: m.mirror, sync: { markAhead: 8 } }).sync({ accounts: [m.acc], pull: false });
    expect(failed.accounts[0]!.error).toMatch(/disk is full/);
    // Only the first group (a window: 2 batches) left; the second group's batches 3 and 4, marked before the refusal
    // in the same commit, are not in flight (their requests never left): queued as first sends, not reconciled.
    expect(posts(log, '/api/parcels/')).toHaveLength(2);
    expect(durableStates(m.file, true)).toEqual({ committed: 100, queued: 500, batchRows: 0 });
    expect(db.prepare("SELECT count(*) FROM outbox WHERE entity = 'parcel' AND state = 'queued' AND attempts = 0").pluck().get()).toBe(500);
    db.exec('DROP TRIGGER temp.mark_refused');
    const r = await recordingEngine(w, log, { mirror: m.mirror, sync: { markAhead: 8 } }).sync({ accounts: [m.acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ synced: true, committed: 500 });
    // No listing read to reconcile anything, and each parcel on the service once.
    expect(log.filter((e) => e.method === 'GET')).toHaveLength(0);
    const remote = refCounts(await serviceParcels(w, m.acc, m.farmId));
    expect(created.every((c) => remote.get(c.local_id) === 1)).toBe(true);
    expect(remote.size).toBe(600);
    m.mirror.close();
  });
});

describe('the merge base of a pushed parcel', () => {
  it('is not copied into the row at the push; edits made here and on the service afterwards still merge three-way', async () => {
    const m = await ownMirror('base');
    const [p] = m.mirror.write.createParcels(m.farmLocal, parcelInputs(1, 'base')).created;
    expect((await recordingEngine(w, [], { mirror: m.mirror }).sync({ accounts: [m.acc] })).accounts[0]).toMatchObject({ synced: true });
    const pushed = m.mirror.read.parcel(p!.local_id)!;
    expect([pushed.server_id !== null, pushed.base]).toEqual([true, null]);
    // Here a new key; there another key and a new name. PATCH replaces the whole metadata on the service.
    m.mirror.write.updateParcel(p!.local_id, { metadata: { ...JSON.parse(pushed.metadata), here: 'mine' } });
    const remote = (await w.api('GET', `/api/parcels/${pushed.server_id}/`, undefined, as(m.acc))).body as { properties: { metadata: Record<string, unknown> } };
    expect((await w.api('PATCH', `/api/parcels/${pushed.server_id}/`, { id: pushed.server_id, name: 'renamed there', metadata: { ...remote.properties.metadata, there: 'theirs' } }, as(m.acc))).status).toBe(200);
    const r = await recordingEngine(w, [], { mirror: m.mirror }).sync({ accounts: [m.acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, conflicts: 0 });
    const after = (await w.api('GET', `/api/parcels/${pushed.server_id}/`, undefined, as(m.acc))).body as { properties: { name: string; metadata: Record<string, unknown> } };
    expect(after.properties.name).toBe('renamed there');
    expect(after.properties.metadata).toMatchObject({ here: 'mine', there: 'theirs', tag: 'base' });
    expect(m.mirror.read.parcel(p!.local_id)).toMatchObject({ name: 'renamed there' });
    m.mirror.close();
  });

  it('a pull that finds everything as the mirror has it writes no farm, parcel or crop row', async () => {
    const m = await ownMirror('quiet');
    const { created } = m.mirror.write.createParcels(m.farmLocal, parcelInputs(120, 'quiet'));
    m.mirror.write.createCrop(m.acc, created[0]!.local_id, { name: 'Wheat', campaign: '2026', sowing: '2026-01-10' });
    expect((await recordingEngine(w, [], { mirror: m.mirror }).sync({ accounts: [m.acc] })).accounts[0]).toMatchObject({ synced: true });
    m.mirror.syncDb.exec(`CREATE TEMP TABLE writes (n INTEGER); INSERT INTO writes VALUES (0);
      CREATE TEMP TRIGGER count_parcels AFTER UPDATE ON main.parcels BEGIN UPDATE writes SET n = n + 1; END;
      CREATE TEMP TRIGGER count_farms AFTER UPDATE ON main.farms BEGIN UPDATE writes SET n = n + 1; END;
      CREATE TEMP TRIGGER count_crops AFTER UPDATE ON main.crops BEGIN UPDATE writes SET n = n + 1; END;`);
    expect((await recordingEngine(w, [], { mirror: m.mirror }).sync({ accounts: [m.acc] })).accounts[0]).toMatchObject({ synced: true });
    expect(m.mirror.syncDb.prepare('SELECT n FROM writes').pluck().get()).toBe(0);
    m.mirror.close();
  });
});

describe('checkpoints during the parcel push', () => {
  /** The engine's connection's own checkpoint threshold in the middle of a push of `n` parcels, and after it. */
  async function thresholds(tag: string, n: number): Promise<{ during: number; after: number }> {
    const m = await ownMirror(tag);
    m.mirror.write.createParcels(m.farmLocal, parcelInputs(n, tag));
    const log: SentRequest[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    // The 20th request is held at the door: the run is in its middle, past its second group.
    const gate = async (e: SentRequest, all: readonly SentRequest[]) => { if (posts(all, '/api/parcels/')[19] === e) await held; };
    const run = recordingEngine(w, log, { mirror: m.mirror, gate }).sync({ accounts: [m.acc], pull: false });
    await until(() => posts(log, '/api/parcels/').length >= 20);
    const during = m.mirror.syncDb.pragma('wal_autocheckpoint', { simple: true }) as number;
    release();
    expect((await run).accounts[0]).toMatchObject({ synced: true, committed: n });
    const after = m.mirror.syncDb.pragma('wal_autocheckpoint', { simple: true }) as number;
    m.mirror.close();
    return { during, after };
  }

  it('a large push leaves checkpoints to a thread of its own, and gives the connection its own back when it ends', async () => {
    // 0: the connection never checkpoints inside its commits (platform/node/checkpointer.ts); 1000: SQLite's default.
    expect(await thresholds('ckpt-large', 2_500)).toEqual({ during: 0, after: 1000 });
  });

  it('a smaller push starts no thread: the connection checkpoints as it always does', async () => {
    expect(await thresholds('ckpt-small', 1_200)).toEqual({ during: 1000, after: 1000 });
  });
});
