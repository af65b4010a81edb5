// A process killed in the middle of an import leaves the mirror as it was before the import: with the rollback
// journal the CLI's import writes with when it is the mirror's only connection (db/bulk.ts withRollbackJournal),
// and with the WAL it keeps when another connection has the mirror open.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Mirror } from '../mirror.ts';
import { importFile } from './index.ts';
import { ACCOUNT, featureCollection, polygonFeature, square, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CHILD = join(HERE, 'fixtures/import-child.ts');

let t: TempMirror | undefined;
afterEach(() => t?.close());

const fields = (n: number, lat: number) => featureCollection(Array.from({ length: n }, (_, i) =>
  polygonFeature({ name: `Field ${i}`, crop: 'olive' }, [square(-4 + (i % 100) * 0.002, lat + Math.floor(i / 100) * 0.002)])));

/** Everything an import writes, to compare before and after. */
function state(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    const count = (sql: string) => db.prepare(sql).pluck().get();
    return {
      parcels: db.prepare('SELECT local_id, name, geometry FROM parcels ORDER BY rowid').all(),
      farms: db.prepare('SELECT local_id, name FROM farms ORDER BY rowid').all(),
      outbox: db.prepare('SELECT entity, local_id, op, state FROM outbox ORDER BY id').all(),
      history: db.prepare('SELECT label, changes FROM history ORDER BY id').all(),
      rtree: count('SELECT count(*) FROM parcels_rtree'),
      fts: count("SELECT count(*) FROM parcels_fts WHERE parcels_fts MATCH 'olive'"),
      trigger: count("SELECT sql FROM sqlite_master WHERE name = 'parcels_ai'"),
      integrity: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
}

/** Starts the import in a child process and kills it once it is writing; what the child said of its journal. */
function killMidImport(dir: string, file: string, whileWriting: () => void = () => {}): Promise<string> {
  // node itself, not the tsx wrapper: SIGKILL must reach the process that imports.
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n') && child.exitCode === null && !child.killed) {
        try {
          whileWriting();
        } catch (e) {
          fail(e);
        }
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? done(out.trim()) : fail(new Error(`child exited ${code}: ${out}`))));
  });
}

describe('an import killed halfway', () => {
  it('leaves the mirror as before: rolled back from its journal by the next open (the only connection)', async () => {
    t = tempMirror();
    await importFile(t.mirror, t.file('first.geojson', fields(30, 37)), { accountId: ACCOUNT, farmName: 'Cortijo' });
    t.mirror.close();
    const file = join(t.dir, 'mirror.db');
    const before = state(file);
    const said = await killMidImport(t.dir, t.file('big.geojson', fields(12_000, 38)), () => {
      expect(existsSync(`${file}-journal`)).toBe(true);
    });
    expect(said).toBe('writing delete');
    t.mirror = Mirror.open(file);
    expect(t.mirror.syncDb.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(state(file)).toEqual(before);
    expect(existsSync(`${file}-journal`)).toBe(false);
    // And the mirror takes the same import afterwards, indexes and all.
    await importFile(t.mirror, join(t.dir, 'big.geojson'), { accountId: ACCOUNT, farmName: 'Cortijo' });
    expect(t.mirror.read.search('olive', 20_000, ACCOUNT).length).toBe(12_030);
  }, 60_000);

  it('keeps the WAL while another connection has the mirror open, which reads the mirror as before meanwhile', async () => {
    t = tempMirror();
    await importFile(t.mirror, t.file('first.geojson', fields(30, 37)), { accountId: ACCOUNT, farmName: 'Cortijo' });
    const file = join(t.dir, 'mirror.db');
    const before = state(file);
    const said = await killMidImport(t.dir, t.file('big.geojson', fields(12_000, 38)), () => {
      expect(t!.mirror.read.search('olive', 20_000, ACCOUNT).length).toBe(30);
    });
    expect(said).toBe('writing wal');
    expect(state(file)).toEqual(before);
  }, 60_000);
});
