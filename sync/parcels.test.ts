// The parcel push against the real service: rows validated when written are sent from their stored JSON text,
// rows whose content changed since are validated again, and two batches are in flight at once without changing
// any outcome — also when the run stops halfway.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { farmOnService, posts, recordingEngine, refCounts, resetFaults, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import { square } from '../test/helpers/service.ts';
import type { ParcelRow } from '../db/types.ts';
import { randomUUID } from 'node:crypto';
import { updateRow } from '../db/rows.ts';
import { markInFlight } from '../db/op-transitions.ts';
import { commitCreated, parcelJson, type CreatedFeature } from './parcels.ts';
import { defaultSyncOptions, type AccountCtx } from './context.ts';
import { parcelInput, parcelStateOfRow, REF_KEY } from './state.ts';

const LONG = process.env.CI_LONG === '1';

describe('parcelJson', () => {
  const num = fc.double({ noNaN: true, noDefaultInfinity: true });
  const value = fc.oneof(fc.string(), num, fc.integer(), fc.boolean());
  const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '0', '17', 'Supplier ID')).filter((k) => k !== REF_KEY);
  const row = fc.record({
    name: fc.string({ unit: 'binary' }),
    meta: fc.array(fc.tuple(key, value), { maxLength: 8 }),
    ring: fc.array(fc.tuple(num, num), { minLength: 4, maxLength: 12 }),
    point: fc.option(fc.tuple(num, num), { nil: null }),
    hectares: num,
  }).map((r): ParcelRow => ({
    local_id: '0b5f0f5e-4a4e-4d6c-9d8e-6a1c2b3d4e5f', account_id: 'acc', farm_local_id: 'f', server_id: null, key: null,
    name: r.name, source_type: r.point ? 'Point' : 'Polygon', point: r.point ? JSON.stringify(r.point) : null,
    geometry: JSON.stringify({ type: 'Polygon', coordinates: [r.ring] }), hectares: r.hectares,
    // As the writer stores it: JSON.stringify of an object built like JSON.parse builds one.
    metadata: JSON.stringify(Object.fromEntries(r.meta)),
    minx: 0, miny: 0, maxx: 0, maxy: 0, checked: 1, base: null, deleted: 0, created: '', modified: '',
  }));

  it('is byte for byte the JSON of parcelInput for every stored row', () => {
    fc.assert(fc.property(row, (r) => {
      expect(parcelJson(r)).toBe(JSON.stringify(parcelInput(r.local_id, parcelStateOfRow(r))));
    }), { numRuns: LONG ? 10_000 : 1_000, seed: LONG ? undefined : 20_261_122 });
  });
});

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });
afterEach(async () => { await resetFaults(w); });


const bowtie = (lon: number, lat: number) => {
  const [[a, b, c, d]] = square(lon, lat, 100) as [number[][]];
  return { type: 'Polygon', coordinates: [[a, c, b, d, a]] };
};

describe('the parcel push', () => {
  it('content written without validation (as a pull writes it) is validated before sending: an invalid row is rejected locally, never sent', async () => {
    const { acc, farm } = await farmOnService(w, 'Revalidate');
    const [good, changed] = w.mirror.write.createParcels(farm.local_id, parcelInputs(2, 'rv')).created as [ParcelRow, ParcelRow];
    // A self-intersecting ring written straight into the row: its stamp is cleared, so the engine must not trust it.
    updateRow(w.mirror.syncDb, 'parcel', changed.local_id, { geometry: JSON.stringify(bowtie(-4.3, 37.3)) });
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]).toMatchObject({ committed: 1, rejected: 1 });
    expect(posts(log, '/api/parcels/').map((p) => [p.parcels, p.status])).toEqual([[1, 201]]);
    expect(w.mirror.read.outbox(acc).find((o) => o.local_id === changed.local_id)).toMatchObject({ state: 'rejected', last_error: expect.stringMatching(/cross/i) });
    const remote = refCounts(await serviceParcels(w, acc, farm.server_id!));
    expect([remote.get(good.local_id), remote.has(changed.local_id)]).toEqual([1, false]);
  });

  it('keeps two batches in flight (one with pushWindow 1), and every parcel arrives exactly once', async () => {
    for (const window of [2, 1]) {
      const { acc, farm } = await farmOnService(w, `Window ${window}`);
      const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(150, `w${window}`));
      const log: SentRequest[] = [];
      // The first batch is held back until the third has left (window 2), or for a moment (window 1, where no other
      // request may leave meanwhile): what overlaps is then the engine's doing, not the machine's speed.
      const gate = async (e: SentRequest, all: readonly SentRequest[]) => {
        if (posts(all, '/api/parcels/')[0] !== e) return;
        for (let waited = 0; waited < (window === 2 ? 20_000 : 300) && posts(all, '/api/parcels/').length < 3; waited += 10) await new Promise((r) => setTimeout(r, 10));
      };
      const r = await recordingEngine(w, log, { gate, sync: { pushWindow: window } }).sync({ accounts: [acc], pull: false });
      expect(r.accounts[0]).toMatchObject({ synced: true, committed: 150 });
      const sent = posts(log, '/api/parcels/');
      expect(sent.map((s) => [s.parcels, s.status])).toEqual([[50, 201], [50, 201], [50, 201]]);
      // How many requests were still out when each one left: never the window or more; with 2, batches 2 and 3
      // both left while the held first one was out.
      const outAtSend = sent.map((s, i) => sent.slice(0, i).filter((e) => s.seq < e.doneSeq!).length);
      expect(outAtSend, `window ${window}`).toEqual(window === 2 ? [0, 1, 1] : [0, 0, 0]);
      const remote = refCounts(await serviceParcels(w, acc, farm.server_id!));
      expect(created.every((c) => remote.get(c.local_id) === 1)).toBe(true);
      expect(remote.size).toBe(150);
    }
  });

  it('a run that stops on one batch waits for the other batch out before returning: nothing is left in flight', async () => {
    const { acc, farm } = await farmOnService(w, 'Stop');
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(150, 'stop'));
    await w.fault('POST /api/parcels/', 'error', { status: 503 });
    const log: SentRequest[] = [];
    // No retry budget: the 503 on the first batch ends the run while the second batch is out.
    const r = await recordingEngine(w, log, { sync: { retryBudget: 0 } }).sync({ accounts: [acc], pull: false });
    expect(r.accounts[0]!.error).toMatch(/retry budget/);
    const sent = posts(log, '/api/parcels/');
    expect(sent.map((s) => s.status)).toEqual([503, 201]);
    // The second batch left before the first one's answer came back.
    expect(sent[1]!.seq).toBeLessThan(sent[0]!.doneSeq!);
    const states = w.mirror.syncDb.prepare("SELECT state, COUNT(*) AS n FROM outbox WHERE account_id = ? AND entity = 'parcel' GROUP BY state ORDER BY state").all(acc);
    // The second batch committed. The first was refused before any work (503), so it is certain that it created
    // nothing: it waits in the queue, like the third that never left — nothing to settle.
    expect(states).toEqual([{ state: 'committed', n: 50 }, { state: 'queued', n: 100 }]);

    const again = await recordingEngine(w, [], { sync: { settleMs: 50 } }).sync({ accounts: [acc], pull: false });
    expect(again.accounts[0]).toMatchObject({ synced: true });
    const remote = refCounts(await serviceParcels(w, acc, farm.server_id!));
    expect(created.every((c) => remote.get(c.local_id) === 1)).toBe(true);
    expect(remote.size).toBe(150);
  });
});

describe('booking a 201 checked only for the ids it gives', () => {
  it('books a parcel from its id, key and reference; one edited while out needs the whole created parcel for its base, else it is settled from the listing', async () => {
    const { acc, farm } = await farmOnService(w, 'Booking');
    const [plain, edited, whole] = w.mirror.write.createParcels(farm.local_id, parcelInputs(3, 'bk')).created as [ParcelRow, ParcelRow, ParcelRow];
    const db = w.mirror.syncDb;
    const creates = new Map(w.mirror.read.outbox(acc).filter((o) => o.op === 'create').map((o) => [o.local_id, o]));
    const opOf = (p: ParcelRow) => creates.get(p.local_id)!;
    markInFlight(db, [plain, edited, whole].map((p) => opOf(p).id), randomUUID());
    // Edited while the create is out: each gets an update op, so its base must be what the service created.
    for (const p of [edited, whole]) w.mirror.write.updateParcel(p.local_id, { name: `${p.name} renamed` });
    const idsOnly = (p: ParcelRow, id: number): CreatedFeature => ({ id, properties: { key: randomUUID(), metadata: { [REF_KEY]: p.local_id } } });
    const s = parcelStateOfRow(whole);
    const at = new Date().toISOString();
    const wholeFeature = {
      type: 'Feature', id: 9003, bbox: [whole.minx, whole.miny, whole.maxx, whole.maxy], geometry: s.geometry,
      properties: { key: randomUUID(), name: s.name, farm: farm.server_id, hectares: s.hectares, metadata: { ...s.metadata, [REF_KEY]: whole.local_id }, source_type: s.source_type, point: null, center: [whole.minx, whole.miny], created: at, modified: at },
    } as CreatedFeature;
    const ctx = { db, stats: { sent: 0, committed: 0, rejected: 0, conflicts: 0, pulled: 0, received: 0, removed: 0, plantsChanged: 0, bytes: 0 }, opts: defaultSyncOptions() } as unknown as AccountCtx;
    commitCreated(ctx, [{ op: opOf(plain), feature: idsOnly(plain, 9001) }, { op: opOf(edited), feature: idsOnly(edited, 9002) }, { op: opOf(whole), feature: wholeFeature }]);
    const stateOf = (p: ParcelRow) => db.prepare('SELECT state FROM outbox WHERE id = ?').pluck().get(opOf(p).id);
    expect([plain, edited, whole].map(stateOf)).toEqual(['committed', 'uncertain', 'committed']);
    const rows = [plain, edited, whole].map((p) => w.mirror.read.parcel(p.local_id)!);
    expect(rows.map((r) => r.server_id)).toEqual([9001, null, 9003]);
    // The plain one is exactly what was sent (implicit base); the edited one's base is the state the service created.
    expect(rows[0]!.base).toBeNull();
    expect(JSON.parse(rows[2]!.base!)).toMatchObject({ name: whole.name });
    expect(rows[2]!.name).toBe(`${whole.name} renamed`);
  });
});
