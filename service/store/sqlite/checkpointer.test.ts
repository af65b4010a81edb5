import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from './db.ts';
import { startCheckpointer, type Checkpointer } from './checkpointer.ts';

const open: { db: Db; dir: string; cp?: Checkpointer }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.cp?.close();
    o.db.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function fresh(): { db: Db; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-ckpt-'));
  const file = join(dir, 'x.db');
  const db = openDb(file, { synchronous: 'FULL' });
  db.exec('CREATE TABLE blobs (b TEXT)');
  open.push({ db, dir });
  return { db, file };
}

const write = (db: Db, mb: number) => db.transaction(() => {
  for (let i = 0; i < mb; i++) db.prepare('INSERT INTO blobs VALUES (?)').run('x'.repeat(1024 * 1024));
})();

async function until(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('startCheckpointer', () => {
  it("takes checkpoints off the connection's commits and does them on its own thread", async () => {
    const { db, file } = fresh();
    open[open.length - 1]!.cp = startCheckpointer(db, file, 'FULL', 50);
    write(db, 8);
    // The commit left the WAL alone (SQLite would have checkpointed past 1,000 pages, 4 MB)…
    expect(statSync(file).size).toBeLessThan(1024 * 1024);
    // …and the thread copies it into the database file.
    expect(await until(() => statSync(file).size > 8 * 1024 * 1024)).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM blobs').get()).toEqual({ n: 8 });
  });

  it('closes its thread and connection, leaving the database usable', async () => {
    const { db, file } = fresh();
    const cp = startCheckpointer(db, file, 'NORMAL', 50);
    write(db, 1);
    await cp.close();
    write(db, 1);
    expect(db.prepare('SELECT COUNT(*) AS n FROM blobs').get()).toEqual({ n: 2 });
  });
});
