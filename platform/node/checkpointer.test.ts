import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Db } from './sqlite.ts';
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
  const db = openSqlite(file, { synchronous: 'FULL', migrations: [(d) => d.exec('CREATE TABLE blobs (b TEXT)')], future: () => 'from the future' });
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

  it('keeps the WAL bounded: one grown past the limit behind a reader holding an old snapshot is cut back once the reader goes', async () => {
    const { db, file } = fresh();
    open[open.length - 1]!.cp = startCheckpointer(db, file, 'NORMAL', 50, 1024 * 1024);
    // A reader in the middle of a long read (a streamed listing): no checkpoint can get past its snapshot.
    const reader = openSqlite(file, { synchronous: 'NORMAL', migrations: [(d) => d.exec('CREATE TABLE blobs (b TEXT)')], future: () => 'from the future' });
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM blobs').get();
    for (let i = 0; i < 8; i++) write(db, 1);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(8 * 1024 * 1024);
    reader.exec('COMMIT');
    reader.close();
    // Before, the WAL kept its largest size until the last connection closed.
    expect(await until(() => statSync(`${file}-wal`).size <= 1024 * 1024)).toBe(true);
    write(db, 1);
    expect(db.prepare('SELECT COUNT(*) AS n FROM blobs').get()).toEqual({ n: 9 });
  });

  it('keeps the WAL bounded under sustained writes, and never makes a write transaction fail (read, then write, as the service commits)', async () => {
    const { db, file } = fresh();
    open[open.length - 1]!.cp = startCheckpointer(db, file, 'NORMAL', 50, 1024 * 1024);
    const tx = db.transaction(() => {
      db.prepare('SELECT COUNT(*) FROM blobs').get();
      db.prepare('INSERT INTO blobs VALUES (?)').run('x'.repeat(64 * 1024));
    });
    let peak = 0;
    let n = 0;
    // A fixed amount, not a fixed time: on a loaded machine 2 s of writes came to 15 MB, too little to tell a bounded
    // WAL from an unbounded one. 64 MB: in a loaded CI the thread's checkpoints came late enough for the WAL to reach
    // 10.8 MB between two of them, over a third of 32 MB; what it reaches so does not grow with the amount written.
    const WRITTEN = 64 * 1024 * 1024;
    while (n * 64 * 1024 < WRITTEN) {
      tx();
      n++;
      if (n % 8 === 0) {
        peak = Math.max(peak, statSync(`${file}-wal`).size);
        // A moment between requests, as a service's event loop has: the thread's messages come in, and on a loaded
        // machine (CI, load 11 on 2 cores) the thread gets a core at all — yielding with setImmediate alone, the WAL
        // reached half the amount written there before its checkpoint ran.
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    expect(db.prepare('SELECT COUNT(*) AS n FROM blobs').get()).toEqual({ n });
    // 64 MB of writes as fast as this machine writes them: the WAL is started over again and again, its size bounded
    // by the limit and what is written between two checkpoints, not by what was written in all (with the truncation
    // from the thread, and before it none, it reached the whole amount).
    const written = n * 64 * 1024;
    expect(peak).toBeLessThan(written / 3);
  });

  it('closes its thread and connection, leaving the database usable and checkpointing on its own again', async () => {
    const { db, file } = fresh();
    db.pragma('wal_autocheckpoint = 500');
    const cp = startCheckpointer(db, file, 'NORMAL', 50);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    write(db, 1);
    await cp.close();
    // The connection's own setting, as it was before: a push borrows the thread, the connection outlives it.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(500);
    write(db, 1);
    expect(db.prepare('SELECT COUNT(*) AS n FROM blobs').get()).toEqual({ n: 2 });
  });

  it('close() in a process with nothing else to wait for returns, and the process exits normally', () => {
    // What the CLI does at the end of a push: the thread was unreferenced (it must not keep a process alive), so
    // close() must hold the process until the thread has closed its connection, or Node ends it with an unsettled await.
    const dir = mkdtempSync(join(tmpdir(), 'furrow-ckpt-'));
    const script = join(dir, 'close.mts');
    writeFileSync(script, `
      import { openSqlite } from ${JSON.stringify(new URL('./sqlite.ts', import.meta.url).pathname)};
      import { startCheckpointer } from ${JSON.stringify(new URL('./checkpointer.ts', import.meta.url).pathname)};
      const db = openSqlite(${JSON.stringify(join(dir, 'x.db'))}, { synchronous: 'FULL', migrations: [], future: () => 'future' });
      const cp = startCheckpointer(db, db.name, 'FULL', 20);
      await new Promise((r) => setTimeout(r, 50));
      await cp.close();
      db.close();
      console.log('closed');
    `);
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
    rmSync(dir, { recursive: true, force: true });
    expect({ status: r.status, out: r.stdout.trim() }).toEqual({ status: 0, out: 'closed' });
  });
});
