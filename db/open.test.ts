// The mirror's files are the user's alone, on real files and real SQLite under a permissive umask (set here, restored
// after): FURROW_HOME 0700, mirror.db and its -wal and -shm 0600 once written to; a home and files an older build left
// wider (0755, 0644) narrowed when the mirror is opened again.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000001';
const dir = mkdtempSync(join(tmpdir(), 'furrow-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let umask: number;
beforeEach(() => { umask = process.umask(0o022); });
afterEach(() => { process.umask(umask); });

/** Each path with its permission bits, so that a failure names the file. */
const modes = (paths: string[]) => paths.map((p) => [p, statSync(p).mode & 0o777]);

describe('the mirror on disk', () => {
  it('creates FURROW_HOME 0700 and the mirror, its -wal and -shm 0600', () => {
    const home = join(dir, 'fresh', 'furrow');
    const file = join(home, 'mirror.db');
    const m = Mirror.open(file);
    try {
      m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      m.write.createFarm(ACC, 'North');
      expect(modes([home])).toEqual([[home, 0o700]]);
      const files = [file, `${file}-wal`, `${file}-shm`];
      expect(modes(files)).toEqual(files.map((f) => [f, 0o600]));
    } finally {
      m.close();
    }
  });

  it('narrows a home found 0755 and mirror files found 0644 when the mirror is opened again', () => {
    const home = join(dir, 'older', 'furrow');
    const file = join(home, 'mirror.db');
    const files = [file, `${file}-wal`, `${file}-shm`];
    // Still open (another process of an older build): its -wal and -shm stay.
    const first = Mirror.open(file);
    try {
      first.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      chmodSync(home, 0o755);
      for (const f of files) chmodSync(f, 0o644);
      const again = Mirror.open(file);
      try {
        again.write.createFarm(ACC, 'South');
        expect(modes([home, ...files])).toEqual([[home, 0o700], ...files.map((f) => [f, 0o600])]);
      } finally {
        again.close();
      }
    } finally {
      first.close();
    }
  });

  it('makes what a crash left in flight uncertain at open, but not on a thread\'s connection (recover: false)', () => {
    const file = join(dir, 'inflight', 'mirror.db');
    const m = Mirror.open(file);
    m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
    m.write.createFarm(ACC, 'North');
    // As a sync marks an op it sends (this process's, still syncing: no live holder is named here, as after a crash).
    m.syncDb.prepare("UPDATE outbox SET state = 'in_flight'").run();
    const states = (x: Mirror) => x.syncDb.prepare('SELECT state FROM outbox').pluck().all();
    const thread = Mirror.open(file, { recover: false });
    expect(states(thread)).toEqual(['in_flight']);
    thread.close();
    const reopened = Mirror.open(file);
    expect(states(reopened)).toEqual(['uncertain']);
    reopened.close();
    m.close();
  });
});
