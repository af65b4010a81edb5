// The mirror of a million parcels that the query and host benchmarks read: built once with a seeded PRNG (rows
// inserted straight into `parcels`; the schema's triggers keep the R*Tree and FTS5 indexes in step) and cached under
// bench/tmp/, and the viewports a user looks at in it.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Mirror } from '../../db/mirror.ts';
import { migrations } from '../../db/migrations/index.ts';
import { farmFields, prng, DEFAULT_LAYOUT, type Field } from './fields.ts';
import { BENCH_DIR } from './paths.ts';
import { r1 } from './stats.ts';

/**
 * Bump when the generated data or the way it is built changes: a cached file of another version is not used. A cached
 * file of an older mirror schema is migrated in place once (upToDate), as the app would: the same rows, and minutes
 * less than building them again.
 */
export const DATA_VERSION = 2;
export const MILLION_ACCOUNT = 'acc-00000000-0000-4000-8000-00000000b002';
export const TMP_DIR = join(BENCH_DIR, 'tmp');
/** Field scale: about 5 km × 5 km; zoomed out: about 15 km × 15 km (degrees at ~38° N). */
const FIELD_VIEW = { w: 5000 / (111_320 * Math.cos((38 * Math.PI) / 180)), h: 5000 / 111_320 };
const ZOOMED_VIEW = { w: FIELD_VIEW.w * 3, h: FIELD_VIEW.h * 3 };

/** A count rounded up to whole farms. */
export const wholeFarms = (n: number): number => Math.ceil(n / DEFAULT_LAYOUT.fieldsPerFarm) * DEFAULT_LAYOUT.fieldsPerFarm;

export interface MillionMirror { file: string; meta: BuildMeta; reused: boolean }

export interface BuildMeta { version: number; parcels: number; farms: number; build_s: number; bytes: number; built_at: string }

/** Planar area on a local equirectangular projection: good enough for the hectares column of synthetic rows. */
function hectares(ring: readonly number[][]): number {
  const k = Math.cos((ring[0]![1]! * Math.PI) / 180);
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!;
  return Math.round((Math.abs(a) / 2) * 111_320 * 111_320 * k / 100) / 100;
}

/**
 * Builds the mirror: migrations through Mirror.open, then the account, FARMS farms and every parcel inserted
 * directly (synchronous=OFF, 50,000 rows a transaction), as a synced mirror holds them: server id, key and base.
 */
function build(parcels: number, cache: string): BuildMeta {
  const FARMS = parcels / DEFAULT_LAYOUT.fieldsPerFarm;
  mkdirSync(TMP_DIR, { recursive: true });
  const tmp = `${cache}.building`;
  for (const x of ['', '-wal', '-shm']) rmSync(tmp + x, { force: true });
  const t0 = performance.now();
  Mirror.open(tmp).close();
  const db = new Database(tmp);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const now = new Date().toISOString();
  db.prepare('INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, ?, ?, ?, ?)').run(MILLION_ACCOUNT, 'http://127.0.0.1:1', 'api_key', 'bench', now);
  const farmIns = db.prepare('INSERT INTO farms (local_id, account_id, server_id, name, base, deleted, created, modified) VALUES (?, ?, ?, ?, ?, 0, ?, ?)');
  const parcelIns = db.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, key, name, source_type, point, geometry, hectares, metadata,
    minx, miny, maxx, maxy, base, deleted, created, modified) VALUES (?, ?, ?, ?, ?, ?, 'Polygon', NULL, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`);
  let serverId = 0;
  const insertFarm = (f: number, fields: Field[]) => {
    const farmId = randomUUID();
    const name = `Finca ${f + 1}`;
    farmIns.run(farmId, MILLION_ACCOUNT, f + 1, name, JSON.stringify({ name }), now, now);
    for (const x of fields) {
      serverId++;
      const geometry = { type: 'Polygon', coordinates: [x.ring] };
      const ha = hectares(x.ring);
      const base = JSON.stringify({ name: x.name, metadata: x.metadata, geometry, source_type: 'Polygon', point: null, hectares: ha });
      parcelIns.run(randomUUID(), MILLION_ACCOUNT, farmId, serverId, `prc_${serverId.toString(36).padStart(8, '0')}`, x.name, JSON.stringify(geometry), ha,
        JSON.stringify(x.metadata), x.bbox[0], x.bbox[1], x.bbox[2], x.bbox[3], base, now, now);
    }
  };
  const perTx = Math.max(1, Math.floor(50_000 / DEFAULT_LAYOUT.fieldsPerFarm));
  for (let f = 0; f < FARMS; f += perTx) {
    db.transaction(() => {
      for (let g = f; g < Math.min(FARMS, f + perTx); g++) insertFarm(g, farmFields(g));
    })();
    if ((f / perTx) % 4 === 0) process.stderr.write(`  built ${Math.min(FARMS, f + perTx) * DEFAULT_LAYOUT.fieldsPerFarm} parcels, ${r1((performance.now() - t0) / 1000)} s\n`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  for (const x of ['-wal', '-shm']) rmSync(tmp + x, { force: true });
  renameSync(tmp, cache);
  const meta: BuildMeta = { version: DATA_VERSION, parcels, farms: FARMS, build_s: r1((performance.now() - t0) / 1000), bytes: statSync(cache).size, built_at: new Date().toISOString() };
  writeFileSync(`${cache}.json`, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}

/**
 * The mirror of `parcels` parcels (a multiple of a farm's fields), from the cache under bench/tmp/ when one of this
 * data version exists, else built (a minute or two for a million). Shared by mirror-query and mirror-host.
 */
export function millionMirror(parcels: number, rebuild = false): MillionMirror {
  const file = join(TMP_DIR, `mirror-query-v${DATA_VERSION}-${parcels}.db`);
  const metaFile = `${file}.json`;
  if (!rebuild && existsSync(file) && existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as BuildMeta;
    if (meta.version === DATA_VERSION && meta.parcels === parcels) {
      upToDate(file);
      return { file, meta, reused: true };
    }
  }
  process.stderr.write(`  building ${file} (${parcels.toLocaleString('en-US')} parcels)…\n`);
  return { file, meta: build(parcels, file), reused: false };
}

/** Brings a cached mirror to the latest schema (Mirror.open migrates it), when it is not yet; a no-op otherwise. */
function upToDate(file: string): void {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const version = db.pragma('user_version', { simple: true }) as number;
  db.close();
  if (version >= migrations.length) return;
  process.stderr.write(`  migrating ${file} from schema version ${version} to ${migrations.length}…\n`);
  const t0 = performance.now();
  // Closed as the last connection, SQLite checkpoints the WAL into the file and removes it.
  Mirror.open(file).close();
  process.stderr.write(`  migrated in ${r1((performance.now() - t0) / 1000)} s\n`);
}

export type BBox = [number, number, number, number];
export interface Viewport { kind: 'field scale (~5 km)' | 'zoomed out (~15 km)'; bbox: BBox }

/** Viewports where the data is: centred near a random parcel (a random rowid), 3 field-scale ones for every zoomed-out one. */
export function viewports(db: Database.Database, parcels: number, n: number): Viewport[] {
  const next = prng(0xb0b);
  const at = db.prepare('SELECT minx, miny, maxx, maxy FROM parcels WHERE rowid = ?');
  const out: Viewport[] = [];
  for (let i = 0; i < n; i++) {
    const b = at.get(1 + Math.floor(next() * parcels)) as { minx: number; miny: number; maxx: number; maxy: number };
    const zoomed = i % 4 === 3;
    const size = zoomed ? ZOOMED_VIEW : FIELD_VIEW;
    // The centre within about 1 km of the parcel, as a user pans around where they work.
    const cx = (b.minx + b.maxx) / 2 + (next() - 0.5) * FIELD_VIEW.w * 0.4;
    const cy = (b.miny + b.maxy) / 2 + (next() - 0.5) * FIELD_VIEW.h * 0.4;
    out.push({ kind: zoomed ? 'zoomed out (~15 km)' : 'field scale (~5 km)', bbox: [cx - size.w / 2, cy - size.h / 2, cx + size.w / 2, cy + size.h / 2] });
  }
  return out;
}
