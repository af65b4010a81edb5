// Migration 019: held_deletions keeps what a pull held back, by the service's ids, per account; it goes with its account.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './open.ts';
import { heldDeletions, replaceHeldDeletions } from './pull.ts';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-m019-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const t = '2026-01-01T00:00:00.000Z';

describe('migration 019', () => {
  it('adds held_deletions to a mirror of version 18, which keeps its accounts; rows go with their account', () => {
    const db = new Database(join(dir, 'm.db'));
    db.pragma('foreign_keys = ON');
    migrate(db, 18);
    for (const id of ['a', 'b']) db.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run(id, 'http://x', 'api_key', t);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'held_deletions'").get()).toBeUndefined();
    migrate(db, 19);
    expect(db.pragma('user_version', { simple: true })).toBe(19);
    expect(db.prepare('SELECT id FROM accounts ORDER BY id').pluck().all()).toEqual(['a', 'b']);
    replaceHeldDeletions(db, 'a', [{ entity: 'parcel', server_id: 7 }, { entity: 'farm', server_id: 2 }, { entity: 'parcel', server_id: 7 }]);
    replaceHeldDeletions(db, 'b', [{ entity: 'parcel', server_id: 9 }]);
    expect(heldDeletions(db, 'a')).toEqual([{ entity: 'farm', server_id: 2 }, { entity: 'parcel', server_id: 7 }]);
    // A pull's set replaces the account's, and only its own.
    replaceHeldDeletions(db, 'a', [{ entity: 'parcel', server_id: 8 }]);
    expect(heldDeletions(db, 'a')).toEqual([{ entity: 'parcel', server_id: 8 }]);
    expect(() => db.prepare("INSERT INTO held_deletions VALUES ('a', 'crop', 1)").run()).toThrow(/CHECK/);
    db.prepare("DELETE FROM accounts WHERE id = 'a'").run();
    expect(db.prepare('SELECT account_id, entity, server_id FROM held_deletions').all()).toEqual([{ account_id: 'b', entity: 'parcel', server_id: 9 }]);
    db.close();
  });
});
