// Removing an account from the mirror: everything of it goes in one transaction, its undo entries with it (the other
// account's history stays whole), and never silently with work the service does not have, nor during a sync.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountNotRemoved, removeAccount, unsyncedWork } from './accounts.ts';
import { SYNC_LOCK } from './settings.ts';
import { ACCOUNT, square, tempMirror, type TempMirror } from './import/fixtures/temp-mirror.ts';

const OTHER = 'acc-00000000-0000-4000-8000-000000000002';
let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
  t.mirror.write.addAccount({ id: OTHER, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
});
afterEach(() => t.close());

const parcel = (name: string, lon: number) => ({ name, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [square(lon, 37.4)] } } });
const db = () => t.mirror.syncDb;
/** As after a sync: every op of the account acknowledged by the service. */
const synced = (acc: string) => db().prepare("UPDATE outbox SET state = 'committed' WHERE account_id = ?").run(acc);
const count = (table: string, acc: string) => db().prepare(`SELECT count(*) FROM ${table} WHERE account_id = ?`).pluck().get(acc);

function twoAccounts() {
  const mine = t.mirror.write.createFarm(ACCOUNT, 'Mine');
  t.mirror.write.createParcels(mine.local_id, [parcel('A1', -5.9), parcel('A2', -5.8)]);
  const theirs = t.mirror.write.createFarm(OTHER, 'Theirs');
  t.mirror.write.createParcels(theirs.local_id, [parcel('B1', -5.7)]);
  t.mirror.write.setParcelLimit(ACCOUNT, 40);
  return { mine, theirs };
}

describe('removeAccount', () => {
  it('refuses while the account has changes the service does not have, saying how many of which kind', () => {
    twoAccounts();
    expect(unsyncedWork(db(), ACCOUNT)).toEqual({ total: 3, byState: { queued: 3 }, conflicts: 0 });
    const e = (() => { try { removeAccount(db(), ACCOUNT); } catch (err) { return err; } })();
    expect(e).toBeInstanceOf(AccountNotRemoved);
    expect(e).toMatchObject({ code: 'unsynced', message: expect.stringMatching(/has 3 change\(s\) the service does not have \(3 queued\): sync them first, or .*--discard-unsynced/) as unknown });
    expect(count('parcels', ACCOUNT)).toBe(2);
  });

  it('removes every row of the account, its limit and its undo entries; the other account and its undo stay', () => {
    const { theirs } = twoAccounts();
    synced(ACCOUNT);
    const removed = removeAccount(db(), ACCOUNT);
    expect(removed).toMatchObject({ farms: 1, parcels: 2, crops: 0, plants: 0, discarded: { total: 0, conflicts: 0 } });
    for (const table of ['farms', 'parcels', 'outbox', 'conflicts']) expect(count(table, ACCOUNT), table).toBe(0);
    expect(t.mirror.read.accounts().map((a) => a.id)).toEqual([OTHER]);
    expect(db().prepare("SELECT count(*) FROM settings WHERE key LIKE 'parcel_limit:%'").pluck().get()).toBe(0);
    expect(db().prepare('SELECT label FROM history ORDER BY id').pluck().all()).toEqual(['Create farm Theirs', 'Create 1 parcel(s)']);
    // Undo reaches the other account's edits, not the removed ones.
    expect(t.mirror.write.undo()).toBe('Create 1 parcel(s)');
    expect(t.mirror.read.parcels(theirs.local_id)).toEqual([]);
    expect(t.mirror.write.undo()).toBe('Create farm Theirs');
    expect(t.mirror.write.undo()).toBeNull();
    expect(db().pragma('foreign_key_check')).toEqual([]);
  });

  it('removes the undo entry of a bulk create of the account (its rows listed by id alone) and keeps the other account\'s', () => {
    const { mine, theirs } = twoAccounts();
    const many = (prefix: string, lon: number) => Array.from({ length: 201 }, (_, i) => parcel(`${prefix}${i}`, lon + i * 0.002));
    t.mirror.write.createParcels(mine.local_id, many('M', -6.5), { label: 'Bulk mine' });
    t.mirror.write.createParcels(theirs.local_id, many('T', -4.5), { label: 'Bulk theirs' });
    expect(db().prepare("SELECT count(*) FROM history WHERE changes LIKE '%\"created\":[%'").pluck().get()).toBe(2);
    removeAccount(db(), ACCOUNT, { discardUnsynced: true });
    expect(db().prepare('SELECT label FROM history ORDER BY id').pluck().all()).toEqual(['Create farm Theirs', 'Create 1 parcel(s)', 'Bulk theirs']);
    expect(t.mirror.write.undo()).toBe('Bulk theirs');
    expect(t.mirror.read.parcels(theirs.local_id)).toHaveLength(1);
  });

  it('with discardUnsynced removes it anyway and says what was lost', () => {
    twoAccounts();
    expect(removeAccount(db(), ACCOUNT, { discardUnsynced: true })).toMatchObject({ parcels: 2, discarded: { total: 3, byState: { queued: 3 } } });
    expect(count('outbox', ACCOUNT)).toBe(0);
  });

  it('refuses while a sync runs on the mirror, and for an account it does not know', () => {
    twoAccounts();
    synced(ACCOUNT);
    db().prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(SYNC_LOCK, String(process.pid));
    expect(() => removeAccount(db(), ACCOUNT)).toThrow(expect.objectContaining({ code: 'sync_running' }) as Error);
    db().prepare('DELETE FROM settings WHERE key = ?').run(SYNC_LOCK);
    expect(() => removeAccount(db(), 'acc-unknown')).toThrow(expect.objectContaining({ code: 'unknown_account' }) as Error);
    expect(removeAccount(db(), ACCOUNT).parcels).toBe(2);
  });
});
