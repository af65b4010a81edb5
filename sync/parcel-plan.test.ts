// The push's plan reads the outbox a page at a time: paging must change no batch, lose or repeat no op, and end with
// the exact total the progress bar shows.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { PushPlan, type Planned } from './parcel-plan.ts';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

function mirror(): Mirror {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-plan-'));
  dirs.push(dir);
  const m = Mirror.open(join(dir, 'mirror.db'));
  m.write.addAccount({ id: 'acc', service_url: 'http://127.0.0.1:9', mode: 'api_key' });
  return m;
}

/** A farm with a server id, as if its create had landed (the engine's own booking is tested elsewhere). */
function farmOnService(m: Mirror, name: string, serverId: number | null): string {
  const local = m.write.createFarm('acc', name).local_id;
  if (serverId !== null) m.syncDb.prepare('UPDATE farms SET server_id = ? WHERE local_id = ?').run(serverId, local);
  return local;
}

const point = (name: string, hectares: number) => ({ name, metadata: {}, geom: { type: 'Feature', properties: { metadata: { hectares } }, geometry: { type: 'Point', coordinates: [-4, 37] } } });

function takeAll(plan: PushPlan, n: number): Planned[] {
  const out: Planned[] = [];
  while (!plan.done) out.push(...plan.take(n));
  return out;
}

describe('the push plan', () => {
  it('pages through interleaved farms without changing a batch: full batches of one farm, each op once and in order', () => {
    const m = mirror();
    const a = farmOnService(m, 'A', 11);
    const b = farmOnService(m, 'B', 12);
    // 1,330 creates, the two farms alternating every 7: every page of 1,000 cuts both farms' runs.
    for (let i = 0; i < 190; i++) m.write.createParcels(i % 2 ? b : a, parcelInputs(7, `f${i}`));
    const ids = m.syncDb.prepare("SELECT o.id, p.farm_local_id AS farm FROM outbox o JOIN parcels p USING (local_id) WHERE o.entity = 'parcel' ORDER BY o.id").all() as { id: number; farm: string }[];
    const plan = new PushPlan(m.syncDb, 'acc', new Date().toISOString(), 100);
    expect(plan.total).toBe(1330);
    const batches = takeAll(plan, 3);
    for (const [farmId, local] of [[11, a], [12, b]] as const) {
      const mine = batches.filter((x) => x.farmId === farmId);
      // Only the last batch of a farm may be short: 665 = 13 × 50 + 15.
      expect(mine.map((x) => x.ops.length)).toEqual([...Array(13).fill(50), 15]);
      expect(mine.flatMap((x) => x.ops.map((o) => o.id))).toEqual(ids.filter((r) => r.farm === local).map((r) => r.id));
    }
    expect(plan.total).toBe(1330);
    // The push's page (its mark group's 400 ops, and one smaller than a batch) changes no batch either.
    for (const page of [400, 37]) expect(takeAll(new PushPlan(m.syncDb, 'acc', new Date().toISOString(), 100, page), 3)).toEqual(batches);
    m.close();
  });

  it('sends a parcel near the limit alone, leaves out farms the service lacks, and counts exactly what it plans', () => {
    const m = mirror();
    const a = farmOnService(m, 'A', 11);
    const waiting = farmOnService(m, 'Not on the service', null);
    m.write.createParcels(a, [...parcelInputs(3, 'x'), point('Big', 99), ...parcelInputs(2, 'y')]);
    m.write.createParcels(waiting, parcelInputs(4, 'w'));
    const plan = new PushPlan(m.syncDb, 'acc', new Date().toISOString(), 100);
    expect(plan.total).toBe(6);
    const batches = takeAll(plan, 10);
    expect(batches.map((x) => x.ops.length)).toEqual([1, 5]);
    expect(batches.every((x) => x.farmId === 11)).toBe(true);
    expect(plan.total).toBe(6);
    m.close();
  });

  it('plans creates queued while the push runs, and its total says so at the end', () => {
    const m = mirror();
    const a = farmOnService(m, 'A', 11);
    m.write.createParcels(a, parcelInputs(1200, 'first'));
    const plan = new PushPlan(m.syncDb, 'acc', new Date().toISOString(), 100);
    expect(plan.total).toBe(1200);
    const first = plan.take(2);
    m.write.createParcels(a, parcelInputs(30, 'later'));
    const rest = takeAll(plan, 5);
    const sizes = [...first, ...rest].map((x) => x.ops.length);
    expect(sizes.reduce((s, n) => s + n, 0)).toBe(1230);
    expect(sizes.slice(0, -1).every((n) => n === 50)).toBe(true);
    expect(plan.total).toBe(1230);
    m.close();
  });
});
