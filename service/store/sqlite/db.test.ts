// The store's schema: each migration, all pending migrations in one transaction, refusal of a database from
// the future, and the connection settings (WAL, foreign keys).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FutureSchemaError, migrate, openDb, type Db } from './db.ts';
import { migrations } from './migrations/index.ts';
import { ROOT } from '../../../test/helpers/process.ts';

let dir: string;
const open: Db[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-db-'));
});
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const raw = (file = ':memory:'): Db => {
  const db = new Database(file);
  open.push(db);
  return db;
};
const track = (db: Db): Db => {
  open.push(db);
  return db;
};
const version = (db: Db) => db.pragma('user_version', { simple: true }) as number;
const objects = (db: Db, type: string) =>
  (db.prepare(`SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' ORDER BY name`).all(type) as { name: string }[]).map((r) => r.name);
const n = (db: Db, sql: string) => (db.prepare(sql).get() as { n: number }).n;

const TABLES_001 = [
  'accounts', 'api_keys', 'crop_families', 'crops', 'farms', 'organizations', 'parcels', 'parcels_rtree',
  'parcels_rtree_node', 'parcels_rtree_parent', 'parcels_rtree_rowid', 'plants', 'settings',
];

describe('migrations', () => {
  it('there are seven, applied in order, taking user_version from 0 to 7', () => {
    expect(migrations).toHaveLength(7);
    const db = raw();
    expect(version(db)).toBe(0);
    migrate(db);
    expect(version(db)).toBe(7);
  });

  it('001 creates every table, index and trigger, and seeds nothing', () => {
    const db = raw();
    migrate(db, 1);
    expect(version(db)).toBe(1);
    expect(objects(db, 'table')).toEqual(TABLES_001);
    expect(objects(db, 'index')).toEqual(expect.arrayContaining(['api_keys_org', 'crops_account', 'crops_parcel', 'farms_account', 'farms_org', 'parcels_farm', 'plants_account', 'plants_parcel', 'crop_families_name']));
    expect(objects(db, 'trigger')).toEqual(['parcels_rtree_delete']);
    for (const t of ['settings', 'organizations', 'api_keys', 'accounts', 'farms', 'parcels', 'crop_families', 'crops', 'plants']) {
      expect(n(db, `SELECT COUNT(*) AS n FROM ${t}`), t).toBe(0);
    }
    // The relations the spec's states rely on: a farm outlives its account as an orphan; parcels go with their farm.
    const farmFks = db.pragma('foreign_key_list(farms)') as { table: string; from: string; on_delete: string }[];
    expect(farmFks.find((f) => f.from === 'account_id')).toMatchObject({ table: 'accounts', on_delete: 'SET NULL' });
    const parcelFks = db.pragma('foreign_key_list(parcels)') as { table: string; from: string; on_delete: string }[];
    expect(parcelFks.find((f) => f.from === 'farm_id')).toMatchObject({ table: 'farms', on_delete: 'CASCADE' });
    // api_keys keeps a hash, never a key column.
    const keyCols = (db.pragma('table_info(api_keys)') as { name: string }[]).map((c) => c.name);
    expect(keyCols).toContain('hash');
    expect(keyCols).not.toContain('key');
    expect(keyCols).not.toContain('api_key');
  });

  it('002 seeds the shared crop families', () => {
    const db = raw();
    migrate(db, 1);
    migrate(db, 2);
    expect(version(db)).toBe(2);
    expect(objects(db, 'table')).toEqual(TABLES_001);
    const families = db.prepare('SELECT key, organization_id, name, name_norm, observation FROM crop_families ORDER BY id').all() as
      { key: string; organization_id: string | null; name: string; name_norm: string; observation: string }[];
    expect(families).toHaveLength(14);
    expect(families.map((f) => f.name)).toEqual(expect.arrayContaining(['Poaceae', 'Fabaceae', 'Brassicaceae', 'Solanaceae', 'Vitaceae', 'Oleaceae', 'Rosaceae']));
    expect(new Set(families.map((f) => f.name)).size).toBe(14);
    expect(new Set(families.map((f) => f.key)).size).toBe(14);
    for (const f of families) {
      expect(f.organization_id).toBeNull();
      expect(f.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(f.name_norm).toBe(f.name.toLowerCase());
      expect(f.observation.length).toBeGreaterThan(0);
    }
  });

  it('004 gives every farm its parcel count and area, backfilled from the parcels already there, then kept by triggers', () => {
    const db = raw();
    db.pragma('foreign_keys = ON');
    migrate(db, 3);
    const t = new Date().toISOString();
    db.prepare("INSERT INTO organizations (id, name, created) VALUES ('org-1', 'O', ?)").run(t);
    const farm = (name: string) => Number(db.prepare("INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES ('org-1', NULL, ?, ?, ?)").run(name, t, t).lastInsertRowid);
    let k = 0;
    const parcel = (farmId: number, hectares: number) => Number(db.prepare(`INSERT INTO parcels (key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES (?, ?, 'P', 'Polygon', '{}', ?, 0, 0, 1, 1, ?, ?)`).run(`k${k++}`, farmId, hectares, t, t).lastInsertRowid);
    const [a, b, empty] = [farm('A'), farm('B'), farm('Empty')];
    // 0.1 + 0.2 is the classic sum a running REAL total gets wrong; 12.3456785 rounds half away from zero.
    for (const h of [0.1, 0.2, 12.3456785]) parcel(a, h);
    parcel(b, 99.999999);
    const totals = () => db.prepare('SELECT id, parcel_count, micro_hectares FROM farms ORDER BY id').all();
    migrate(db, 5);
    expect(version(db)).toBe(5);
    expect(objects(db, 'trigger')).toEqual(['farm_totals_delete', 'farm_totals_insert', 'farm_totals_update', 'parcels_rtree_delete']);
    expect(totals()).toEqual([
      { id: a, parcel_count: 3, micro_hectares: 100_000 + 200_000 + 12_345_679 },
      { id: b, parcel_count: 1, micro_hectares: 99_999_999 },
      { id: empty, parcel_count: 0, micro_hectares: 0 },
    ]);
    // Insert, area change, move, delete and a farm's cascade: each keeps the totals of every farm exact.
    const p = parcel(empty, 2.5);
    db.prepare('UPDATE parcels SET hectares = 7.25 WHERE id = ?').run(p);
    db.prepare('UPDATE parcels SET name = ? WHERE id = ?').run('renamed', p);
    db.prepare('UPDATE parcels SET farm_id = ? WHERE id = ?').run(b, p);
    db.prepare('DELETE FROM parcels WHERE farm_id = ? AND hectares = 0.2').run(a);
    expect(totals()).toEqual([
      { id: a, parcel_count: 2, micro_hectares: 100_000 + 12_345_679 },
      { id: b, parcel_count: 2, micro_hectares: 99_999_999 + 7_250_000 },
      { id: empty, parcel_count: 0, micro_hectares: 0 },
    ]);
    db.prepare('DELETE FROM farms WHERE id = ?').run(b);
    expect(totals()).toEqual([{ id: a, parcel_count: 2, micro_hectares: 12_445_679 }, { id: empty, parcel_count: 0, micro_hectares: 0 }]);
    // A statement that fails on its second row takes the first row's trigger work with it.
    expect(() => db.prepare(`INSERT INTO parcels (key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES ('fresh', ?, 'P', 'Polygon', '{}', 5, 0, 0, 1, 1, ?, ?), ('k0', ?, 'P', 'Polygon', '{}', 5, 0, 0, 1, 1, ?, ?)`).run(a, t, t, a, t, t)).toThrow(/UNIQUE/);
    expect(totals()).toEqual([{ id: a, parcel_count: 2, micro_hectares: 12_445_679 }, { id: empty, parcel_count: 0, micro_hectares: 0 }]);
  });

  it('006 moves the insert totals from a trigger per row to the bulk create (one UPDATE per batch, same rounding); the other triggers stay', () => {
    const db = raw();
    db.pragma('foreign_keys = ON');
    migrate(db, 5);
    const t = new Date().toISOString();
    db.prepare("INSERT INTO organizations (id, name, created) VALUES ('org-1', 'O', ?)").run(t);
    const farm = Number(db.prepare("INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES ('org-1', NULL, 'A', ?, ?)").run(t, t).lastInsertRowid);
    const insert = (key: string, hectares: number) => db.prepare(`INSERT INTO parcels (key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES (?, ?, 'P', 'Polygon', '{}', ?, 0, 0, 1, 1, ?, ?)`).run(key, farm, hectares, t, t);
    insert('before', 1.5);
    const totals = () => db.prepare('SELECT parcel_count, micro_hectares FROM farms WHERE id = ?').get(farm);
    expect(totals()).toEqual({ parcel_count: 1, micro_hectares: 1_500_000 });
    migrate(db, 6);
    expect(version(db)).toBe(6);
    expect(objects(db, 'trigger')).toEqual(['farm_totals_delete', 'farm_totals_update', 'parcels_rtree_delete']);
    // A raw INSERT no longer moves the totals (insertParcels does, tested with the store below and in the
    // property test); the totals already kept are untouched, and deletes still subtract.
    insert('after', 2.25);
    expect(totals()).toEqual({ parcel_count: 1, micro_hectares: 1_500_000 });
    db.prepare("DELETE FROM parcels WHERE key = 'before'").run();
    expect(totals()).toEqual({ parcel_count: 0, micro_hectares: 0 });
  });

  it('an up-to-date database is left alone: reopening does not seed twice', () => {
    const file = join(dir, 'a.db');
    const first = track(openDb(file));
    const keys = first.prepare('SELECT key FROM crop_families ORDER BY id').all();
    first.close();
    const again = track(openDb(file));
    expect(version(again)).toBe(7);
    expect(again.prepare('SELECT key FROM crop_families ORDER BY id').all()).toEqual(keys);
    migrate(again);
    migrate(again, 1); // asking for an older version never goes back
    expect(version(again)).toBe(7);
    expect(n(again, 'SELECT COUNT(*) AS n FROM crop_families')).toBe(14);
  });
});

describe('all pending migrations run in one transaction', () => {
  it('when a later migration (002) fails, the earlier one (001) is rolled back too: version 0, no tables', () => {
    const db = raw();
    // A TEMP table shadows the name for unqualified statements: 001 still creates its tables in main,
    // but 002's INSERT INTO crop_families lands on this table and fails (it has no `key` column).
    db.exec('CREATE TEMP TABLE crop_families (name_norm TEXT)');
    expect(() => migrate(db)).toThrow(/key/);
    expect(version(db)).toBe(0);
    expect(objects(db, 'table')).toEqual([]);
    expect(objects(db, 'index')).toEqual([]);
    expect(objects(db, 'trigger')).toEqual([]);
    // Once the conflict is gone the same database migrates cleanly.
    db.exec('DROP TABLE temp.crop_families');
    migrate(db);
    expect(version(db)).toBe(7);
    expect(n(db, 'SELECT COUNT(*) AS n FROM crop_families')).toBe(14);
  });

  it('a migration failing halfway leaves none of its rows and the version where it was', () => {
    const db = raw();
    migrate(db, 1);
    db.exec(`CREATE TEMP TRIGGER boom BEFORE INSERT ON main.crop_families WHEN NEW.name = 'Solanaceae'
      BEGIN SELECT RAISE(ABORT, 'boom at the fourth family'); END`);
    expect(() => migrate(db)).toThrow(/boom/);
    expect(version(db)).toBe(1);
    expect(n(db, 'SELECT COUNT(*) AS n FROM crop_families')).toBe(0);
  });

  it('a failure while opening a file database leaves the file at its old version', () => {
    const file = join(dir, 'half.db');
    const setup = raw(file);
    migrate(setup, 1);
    // A conflicting row: 002's ninth family (Vitaceae) collides with it on a unique index.
    setup.exec('CREATE UNIQUE INDEX boom ON crop_families(name_norm)');
    setup.prepare("INSERT INTO crop_families (key, organization_id, name, name_norm, observation, created) VALUES ('k', NULL, 'X', 'vitaceae', '', 't')").run();
    setup.close();
    expect(() => openDb(file)).toThrow(/UNIQUE/);
    const check = raw(file);
    expect(version(check)).toBe(1);
    expect(n(check, 'SELECT COUNT(*) AS n FROM crop_families')).toBe(1);
  });

  it('two processes opening the same fresh database at the same moment both succeed', async () => {
    // Each round: two processes wait for the same instant, then open one fresh file. Without the version
    // being re-read under the write lock, the slower one re-ran 001 and failed with "table settings already exists".
    const script = join(dir, 'open.ts');
    writeFileSync(script, `import { openDb } from ${JSON.stringify(resolve(ROOT, 'service/store/sqlite/db.ts'))};
const [file, at] = [process.argv[2], Number(process.argv[3])];
while (Date.now() < at) { /* wait for the other process */ }
try { openDb(file).close(); process.stdout.write('ok'); } catch (e) { process.stdout.write('fail: ' + (e as Error).message); }
`);
    const run = (file: string, at: number) => new Promise<string>((res) => {
      const child = spawn(resolve(ROOT, 'node_modules/.bin/tsx'), [script, file, String(at)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
      child.on('exit', () => res(out.trim()));
    });
    const at = Date.now() + 5000;
    const files = [1, 2, 3].map((i) => join(dir, `race-${i}.db`));
    const results = await Promise.all(files.flatMap((f) => [run(f, at), run(f, at)]));
    expect(results).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    for (const f of files) {
      const db = raw(f);
      expect(version(db)).toBe(7);
      expect(n(db, 'SELECT COUNT(*) AS n FROM crop_families')).toBe(14);
    }
  }, 60_000);
});

describe('a database from the future', () => {
  it('is refused with FutureSchemaError and left byte for byte as it was', () => {
    const file = join(dir, 'future.db');
    const future = raw(file);
    future.exec("CREATE TABLE from_the_future (x TEXT); INSERT INTO from_the_future VALUES ('keep me')");
    future.pragma('user_version = 99');
    future.close();
    const before = readFileSync(file);

    let err: unknown;
    try {
      openDb(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FutureSchemaError);
    expect((err as Error).name).toBe('FutureSchemaError');
    expect((err as Error).message).toMatch(/99/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);

    const check = raw(file);
    expect(version(check)).toBe(99);
    expect(objects(check, 'table')).toEqual(['from_the_future']);
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    // migrate() itself refuses too, without changing anything.
    expect(() => migrate(check)).toThrow(FutureSchemaError);
    expect(version(check)).toBe(99);
    expect(objects(check, 'table')).toEqual(['from_the_future']);
  });

  it('one version ahead is refused as well', () => {
    const db = raw();
    db.pragma(`user_version = ${migrations.length + 1}`);
    expect(() => migrate(db)).toThrow(FutureSchemaError);
    expect(objects(db, 'table')).toEqual([]);
  });
});

describe('file permissions', () => {
  const mode = (f: string) => statSync(f).mode & 0o777;

  it('a new database, its WAL and its shared memory file are readable by their owner only; a new data directory too', () => {
    const file = join(dir, 'new-data', 'service.db');
    const db = track(openDb(file));
    db.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
    expect(mode(join(dir, 'new-data'))).toBe(0o700);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
  });

  it('a database found readable by others is narrowed to its owner when opened', () => {
    const file = join(dir, 'wide.db');
    track(openDb(file)).close();
    chmodSync(file, 0o644);
    track(openDb(file));
    expect(mode(file)).toBe(0o600);
  });
});

describe('connection settings', () => {
  it('WAL, foreign keys on, synchronous FULL by default (NORMAL on request), a busy timeout', () => {
    const file = join(dir, 's.db');
    const db = track(openDb(file));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.close();
    const normal = track(openDb(file, { synchronous: 'NORMAL' }));
    expect(normal.pragma('synchronous', { simple: true })).toBe(1);
    expect(normal.pragma('journal_mode', { simple: true })).toBe('wal');
    // A plain connection sees WAL too: it is a property of the file.
    expect(raw(file).pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('foreign keys are enforced and cascade', () => {
    const db = track(openDb(join(dir, 'fk.db')));
    const t = new Date().toISOString();
    expect(() => db.prepare("INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES ('org-none', NULL, 'F', ?, ?)").run(t, t))
      .toThrow(/FOREIGN KEY/);
    db.prepare("INSERT INTO organizations (id, name, created) VALUES ('org-1', 'O', ?)").run(t);
    db.prepare("INSERT INTO accounts (id, organization_id, account_email, email_norm, state, auth_id, created, modified) VALUES ('acc-1', 'org-1', 'a@x.io', 'a@x.io', 'active', 'auth', ?, ?)").run(t, t);
    const farm = Number(db.prepare("INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES ('org-1', 'acc-1', 'F', ?, ?)").run(t, t).lastInsertRowid);
    const parcel = Number(db.prepare(`INSERT INTO parcels (key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES ('k1', ?, 'P', 'Polygon', '{}', 1, 0, 0, 1, 1, ?, ?)`).run(farm, t, t).lastInsertRowid);
    db.prepare('INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (?, 0, 1, 0, 1)').run(parcel);
    // Deleting the account leaves the farm as an orphan.
    db.prepare("DELETE FROM accounts WHERE id = 'acc-1'").run();
    expect(db.prepare('SELECT account_id FROM farms WHERE id = ?').get(farm)).toEqual({ account_id: null });
    // Deleting the farm takes its parcels and their spatial index entries.
    db.prepare('DELETE FROM farms WHERE id = ?').run(farm);
    expect(n(db, 'SELECT COUNT(*) AS n FROM parcels')).toBe(0);
    expect(n(db, 'SELECT COUNT(*) AS n FROM parcels_rtree')).toBe(0);
  });
});
