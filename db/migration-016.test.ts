// Migration 016: parcels_synced goes (nothing reads it since farm_totals, 014) and outbox_backoff finds the ops that
// wait out a backoff, so that a run's start (resumeAccount) reads none of a large queue's other ops.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate, openDb } from './open.ts';
import { migrations } from './migrations/index.ts';
import { MirrorReader } from './reader.ts';
import { syncedParcelCount } from './pull.ts';
import { resumeAccount } from './sync-state.ts';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-m016-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const t = '2026-01-01T00:00:00.000Z';
const later = '2026-01-01T00:05:00.000Z';
const indexes = (db: Database.Database) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];

/** A mirror of version 15: two accounts, synced and unsynced parcels, and ops in every state resumeAccount looks at. */
function v15(file: string): void {
  const old = new Database(file);
  migrate(old, 15);
  for (const acc of ['acc-1', 'acc-2']) {
    old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run(acc, 'http://x', 'api_key', t);
    old.prepare('INSERT INTO farms (local_id, account_id, name, created, modified) VALUES (?, ?, ?, ?, ?)').run(`f-${acc}`, acc, 'F', t, t);
  }
  const parcel = old.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, deleted, created, modified)
    VALUES (?, ?, ?, ?, 'P', 'Polygon', '{}', 1, 0, 0, 1, 1, ?, '${t}', '${t}')`);
  parcel.run('p1', 'acc-1', 'f-acc-1', 1, 0);
  parcel.run('p2', 'acc-1', 'f-acc-1', 2, 1);
  parcel.run('p3', 'acc-1', 'f-acc-1', null, 0);
  parcel.run('p4', 'acc-2', 'f-acc-2', 1, 0);
  const op = old.prepare("INSERT INTO outbox (account_id, entity, local_id, op, state, next_attempt_at, created, modified) VALUES (?, 'parcel', ?, 'create', ?, ?, 't', 't')");
  op.run('acc-1', 'a', 'queued', null);
  op.run('acc-1', 'b', 'queued', later);
  op.run('acc-1', 'c', 'blocked', null);
  op.run('acc-1', 'd', 'uncertain', later);
  op.run('acc-1', 'e', 'rejected', null);
  op.run('acc-2', 'f', 'queued', later);
  op.run('acc-2', 'g', 'blocked', null);
  old.close();
}

describe('migration 016', () => {
  it('drops parcels_synced and adds outbox_backoff; the synced counts are what they were', () => {
    const file = join(dir, 'v15.db');
    v15(file);
    const before = new Database(file);
    expect(indexes(before)).toContain('parcels_synced');
    before.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(indexes(db)).not.toContain('parcels_synced');
    expect(indexes(db)).toContain('outbox_backoff');
    expect(syncedParcelCount(db, 'acc-1')).toBe(2);
    expect(new MirrorReader(db as never).status('acc-1').synced).toBe(1);
    // The count the pull makes is still read on an index alone.
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT COUNT(*) AS n FROM parcels WHERE account_id = ? AND server_id IS NOT NULL').all('acc-1') as { detail: string }[];
    expect(plan.map((r) => r.detail).join()).toMatch(/COVERING INDEX/);
    db.close();
  });

  it('resumeAccount releases one account\'s backoffs and blocked ops, and finds them without reading its other ops', () => {
    const file = join(dir, 'v15.db');
    v15(file);
    const db = openDb(file);
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => { seen.push(sql); return prepare(sql); }) as typeof db.prepare;
    resumeAccount(db, 'acc-1');
    db.prepare = prepare;
    const ops = db.prepare('SELECT local_id, state, next_attempt_at FROM outbox ORDER BY id').all();
    expect(ops).toEqual([
      { local_id: 'a', state: 'queued', next_attempt_at: null },
      { local_id: 'b', state: 'queued', next_attempt_at: null },
      { local_id: 'c', state: 'queued', next_attempt_at: null },
      // Uncertain work keeps its settle time; another account's ops are untouched.
      { local_id: 'd', state: 'uncertain', next_attempt_at: later },
      { local_id: 'e', state: 'rejected', next_attempt_at: null },
      { local_id: 'f', state: 'queued', next_attempt_at: later },
      { local_id: 'g', state: 'blocked', next_attempt_at: null },
    ]);
    const outboxSteps = seen.filter((sql) => /outbox/.test(sql))
      .flatMap((sql) => (prepare(`EXPLAIN QUERY PLAN ${sql}`).all('acc-1') as { detail: string }[]).map((r) => r.detail));
    expect(outboxSteps).toEqual(['SEARCH outbox USING INDEX outbox_pending (account_id=? AND state=?)', 'SEARCH outbox USING INDEX outbox_backoff (account_id=?)']);
    db.close();
  });
});
