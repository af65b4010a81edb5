// The in-process half of the bulk-create benchmark (bench/service-bulk.ts): each CPU part of a bulk create (JSON
// parse, core validation and its pieces, SQLite inserts and COMMITs, response JSON, the store end to end) timed
// on the same batches the HTTP runs post, so that a miss can be traced to where the time goes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dbFile } from '../../service/config.ts';
import { openDb, type Db } from '../../service/store/sqlite/db.ts';
import { createOrganization } from '../../service/store/sqlite/organizations.ts';
import { createAccount } from '../../service/store/sqlite/accounts.ts';
import { createFarm } from '../../service/store/sqlite/farms.ts';
import { insertParcels } from '../../service/store/sqlite/parcels.ts';
import { prepareParcels } from '../../service/validation-pool.ts';
import { featureArrayJson, type ParcelRow } from '../../service/store/parcel-json.ts';
import type { Scope } from '../../service/store/scope.ts';
import { validateParcels, type ValidParcel } from '../../core/parcels/validate.ts';
import { polygonAreaM2 } from '../../core/geo/area.ts';
import { findSelfIntersection } from '../../core/geo/intersect.ts';
import { hectareSquare } from '../../core/geo/square.ts';
import type { PolygonCoords } from '../../core/geo/types.ts';
import { BATCH_SIZE, type BatchSet } from './parcels.ts';
import { removeDir } from './service.ts';
import { r1 } from './stats.ts';

export interface CpuPartsOptions {
  /** Leading batches of the set left out (the HTTP runs' warm-up): the measured batches are the rest. */
  warmup: number;
  /** Timed passes per part; the best one counts. */
  passes: number;
  /** Batches per transaction in the group-commit part (the HTTP runs' requests in flight). */
  concurrency: number;
}

export interface Stage {
  stage: string;
  /** Items per second (parcels, or polygons for the polygon-only stages), from the best wall-clock pass. */
  per_s: number;
  unit: string;
  /** Wall-clock microseconds per 50-parcel batch (best pass). */
  us_per_batch: number;
  /** CPU microseconds (user + system) of this process per batch (best pass): robust to other load; no fsync waits. */
  cpu_us_per_batch: number;
  passes_ms: number[];
}

/** Best of `passes` (the pass least disturbed by other load), after one untimed pass. */
function stage(passes: number, name: string, unit: string, items: number, batches: number, fn: () => void): Stage {
  fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < passes; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const best = Math.min(...wall);
  return {
    stage: name, unit, per_s: Math.round(items / (best / 1000)), us_per_batch: r1((best * 1000) / batches),
    cpu_us_per_batch: r1((Math.min(...cpu) * 1000) / batches), passes_ms: wall.map(r1),
  };
}

/**
 * The COMMIT of each 50-parcel transaction on its own (explicit BEGIN, inserts untimed, COMMIT timed), best of
 * passes: the WAL append, at FULL its fsync, and the automatic checkpoints that fall on it.
 */
function commitStage(passCount: number, sync: 'FULL' | 'NORMAL', db: Db, farmId: number, valid: readonly ValidParcel[][]): Stage {
  const pass = (): { wall: number; cpu: number } => {
    let wall = 0;
    let cpu = 0;
    for (const v of valid) {
      db.exec('BEGIN');
      insertParcels(db, farmId, v);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      db.exec('COMMIT');
      wall += performance.now() - t0;
      const c = process.cpuUsage(c0);
      cpu += (c.user + c.system) / 1000;
    }
    return { wall, cpu };
  };
  pass();
  const passes = Array.from({ length: passCount }, pass);
  const best = Math.min(...passes.map((p) => p.wall));
  return {
    stage: `  of which: the COMMIT alone (WAL append${sync === 'FULL' ? ' + fsync' : ''}, checkpoints), synchronous=${sync}`, unit: 'commits/s',
    per_s: Math.round(valid.length / (best / 1000)), us_per_batch: r1((best * 1000) / valid.length),
    cpu_us_per_batch: r1((Math.min(...passes.map((p) => p.cpu)) * 1000) / valid.length), passes_ms: passes.map((p) => r1(p.wall)),
  };
}

function storeFixture(synchronous: 'FULL' | 'NORMAL'): { db: Db; dir: string; farmId: number; scope: Scope } {
  const dir = mkdtempSync(join(tmpdir(), `furrow-bench-cpu-${synchronous.toLowerCase()}-`));
  const db = openDb(dbFile(dir), { synchronous });
  const org = createOrganization(db, 'Bench Org');
  const acc = createAccount(db, org.organization_id, 'cpu-bench@example.com');
  const scope: Scope = { organizationId: org.organization_id, accountId: acc.id, via: 'api_key' };
  const { farm } = createFarm(db, scope, 'Bench farm', []);
  return { db, dir, farmId: farm.id, scope };
}

/** Times every part on the measured batches of `set` (the same bodies the HTTP runs post). */
export function cpuParts(set: BatchSet, o: CpuPartsOptions): Stage[] {
  const { warmup, passes, concurrency } = o;
  const texts = set.bodies.slice(warmup).map((b) => b.toString('utf8'));
  const n = texts.length;
  const parsed = texts.map((t) => JSON.parse(t) as { farm: { id: number }; parcels: unknown[] });
  const polygons: PolygonCoords[] = [];
  const points: { lon: number; lat: number; ha: number }[] = [];
  for (const b of parsed) {
    for (const p of b.parcels as { geom: { properties: { metadata?: { hectares: number } }; geometry: { type: string; coordinates: unknown } } }[]) {
      const g = p.geom.geometry;
      if (g.type === 'Polygon') polygons.push(g.coordinates as PolygonCoords);
      else points.push({ lon: (g.coordinates as number[])[0]!, lat: (g.coordinates as number[])[1]!, ha: p.geom.properties.metadata!.hectares });
    }
  }
  const valid: ValidParcel[][] = parsed.map((b) => {
    const r = validateParcels(b.parcels, { maxHectares: 100 });
    if (r.problems.length) throw new Error(`benchmark batch invalid: ${r.problems[0]!.message}`);
    return r.parcels;
  });
  const parcels = n * BATCH_SIZE;
  let sink = 0;
  const stages: Stage[] = [
    stage(passes, 'JSON.parse of the request body', 'parcels/s', parcels, n, () => { for (const t of texts) sink += (JSON.parse(t) as { parcels: unknown[] }).parcels.length; }),
    stage(passes, 'core validateParcels (everything core checks and computes)', 'parcels/s', parcels, n, () => {
      for (const b of parsed) sink += validateParcels(b.parcels, { maxHectares: 100 }).parcels.length;
    }),
    stage(passes, '  of which: geodesic area alone (polygonAreaM2, polygons only)', 'polygons/s', polygons.length, n, () => { for (const c of polygons) sink += polygonAreaM2(c); }),
    stage(passes, '  of which: point squares (hectareSquare, points only)', 'points/s', points.length, n, () => { for (const p of points) sink += hectareSquare(p.lon, p.lat, p.ha).length; }),
    stage(passes, '  of which: self-intersection sweep alone (polygons only)', 'polygons/s', polygons.length, n, () => { for (const c of polygons) sink += findSelfIntersection(c) === null ? 1 : 0; }),
  ];
  let rows: ParcelRow[][] = [];
  for (const sync of ['FULL', 'NORMAL'] as const) {
    const f = storeFixture(sync);
    try {
      stages.push(stage(passes, `SQLite insert alone (insertParcels, one transaction per batch, synchronous=${sync})`, 'parcels/s', parcels, n, () => {
        rows = valid.map((v) => f.db.transaction(() => insertParcels(f.db, f.farmId, v))());
      }));
      stages.push(commitStage(passes, sync, f.db, f.farmId, valid));
      if (sync === 'FULL') {
        // What a group commit would buy: the same inserts, `concurrency` batches per transaction (one fsync for them all).
        stages.push(stage(passes, `SQLite insert, ${concurrency} batches per transaction (as a group commit would), synchronous=FULL`, 'parcels/s', parcels, n, () => {
          for (let i = 0; i < valid.length; i += concurrency) {
            f.db.transaction(() => { for (const v of valid.slice(i, i + concurrency)) insertParcels(f.db, f.farmId, v); })();
          }
        }));
      }
    } finally {
      f.db.close();
      removeDir(f.dir);
    }
  }
  stages.push(stage(passes, 'response JSON (featureArrayJson of the inserted rows)', 'parcels/s', parcels, n, () => { for (const r of rows) sink += featureArrayJson(r).length; }));
  const f = storeFixture('FULL');
  try {
    const bodies = parsed.map((b) => ({ ...b, farm: { id: f.farmId } }));
    stages.push(stage(passes, 'store validate + insert end to end, no HTTP (one thread, synchronous=FULL)', 'parcels/s', parcels, n, () => {
      for (const b of bodies) {
        const v = prepareParcels(b.parcels as unknown[], 100);
        sink += f.db.transaction(() => insertParcels(f.db, f.farmId, v.parcels))().length;
      }
    }));
  } finally {
    f.db.close();
    removeDir(f.dir);
  }
  if (sink === 0) throw new Error('nothing computed');
  return stages;
}
