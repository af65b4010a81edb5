// What changed in the mirror, whoever wrote it: temporary triggers on the backend's own connection log every row
// written (edits, undo and redo, imports, pulls, the engine's outbox transitions), and each drain turns the log
// into one change event per account. A write rolled back (a cancelled import) rolls its log back with it, and a
// pull that writes nothing logs nothing, so nothing is sent.
import type { Db } from './open.ts';
import type { ChangeEvent } from '../core/api-parcels.ts';

/** Above this many parcels in one drain, the event says "reload" instead of listing them (an import, a first pull). */
export const MANY_PARCELS = 5_000;

const TABLES = [
  { table: 'parcels', kind: 'parcel', id: 'local_id' },
  { table: 'farms', kind: 'farm', id: 'local_id' },
  { table: 'crops', kind: 'crop', id: 'local_id' },
  { table: 'plants', kind: 'plant', id: 'server_id' },
  // An op or a conflict moving changes how its item is drawn (pending, rejected, conflict…).
  { table: 'outbox', kind: "'state:' || r.entity", id: 'local_id' },
  { table: 'conflicts', kind: "'state:' || r.entity", id: 'local_id' },
] as const;

export class ChangeLog {
  constructor(private readonly db: Db) {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS change_log (kind TEXT NOT NULL, id TEXT NOT NULL, account TEXT NOT NULL)');
    for (const { table, kind, id } of TABLES) {
      for (const [when, row] of [['INSERT', 'new'], ['UPDATE', 'new'], ['DELETE', 'old']] as const) {
        const k = kind.startsWith("'state:'") ? kind.replace('r.', `${row}.`) : `'${kind}'`;
        db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS log_${table}_${when.toLowerCase()} AFTER ${when} ON main.${table}
          BEGIN INSERT INTO change_log VALUES (${k}, ${row}.${id}, ${row}.account_id); END`);
      }
    }
  }

  /** The changes logged since the last drain, one event per account; the log is emptied. */
  drain(): ChangeEvent[] {
    const rows = this.db.prepare('SELECT DISTINCT kind, id, account FROM change_log').all() as { kind: string; id: string; account: string }[];
    if (!rows.length) return [];
    this.db.prepare('DELETE FROM change_log').run();
    const byAccount = new Map<string, { farms: Set<string>; parcels: Set<string>; crops: Set<string>; plants: boolean }>();
    for (const r of rows) {
      let a = byAccount.get(r.account);
      if (!a) byAccount.set(r.account, a = { farms: new Set(), parcels: new Set(), crops: new Set(), plants: false });
      const kind = r.kind.replace(/^state:/, '');
      if (kind === 'parcel') a.parcels.add(r.id);
      else if (kind === 'farm') a.farms.add(r.id);
      else if (kind === 'crop') a.crops.add(r.id);
      else if (kind === 'plant') a.plants = true;
    }
    const live = this.db.prepare('SELECT local_id FROM parcels WHERE deleted = 0 AND local_id IN (SELECT value FROM json_each(?))');
    const events: ChangeEvent[] = [];
    for (const [account, a] of byAccount) {
      const many = a.parcels.size > MANY_PARCELS;
      // Removed or not is read from the rows as they are now: a parcel created and deleted since the last drain is removed.
      const present = many ? new Set<string>() : new Set(live.pluck().all(JSON.stringify([...a.parcels])) as string[]);
      const ids = many ? [] : [...a.parcels];
      events.push({
        account, farms: [...a.farms],
        parcels: { upserted: ids.filter((id) => present.has(id)), removed: ids.filter((id) => !present.has(id)) },
        manyParcels: many, crops: [...a.crops], plants: a.plants,
      });
    }
    return events;
  }

  /** Stops logging (the connection is about to close; the temporary triggers go with it anyway). */
  close(): void {
    for (const { table } of TABLES) for (const when of ['insert', 'update', 'delete']) this.db.exec(`DROP TRIGGER IF EXISTS temp.log_${table}_${when}`);
    this.db.exec('DROP TABLE IF EXISTS temp.change_log');
  }
}
