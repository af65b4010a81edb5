import type { Db } from '../db/open.ts';
import type { Entity, ParcelRow } from '../db/types.ts';
import { parcelBase } from '../db/parcel-state.ts';
import { getRow, updateRow } from '../db/rows.ts';
import { enqueue } from '../db/outbox.ts';
import type { AccountCtx } from './context.ts';
import { cropColumns, parcelColumns } from './state.ts';
import { describeWork, keepMineAfterRemoteDelete, keepTheirsAfterRemoteDelete, subtree, unsentWork } from './remote-deletes.ts';
import type { OutboxRow } from '../db/types.ts';
import type { CropState, ParcelState } from '../db/types.ts';

export type ConflictKind = 'edit' | 'remote_delete' | 'duplicate_on_service' | 'partial_batch';

/**
 * Keeps a conflict for the user. The entity's open ops wait in 'conflict' (nothing is sent or overwritten)
 * except for a duplicate on the service, which is informational: our own copy is already committed.
 */
export function recordConflict(ctx: AccountCtx, entity: Entity, localId: string, kind: ConflictKind, fields: string[], base: string | null, mine: string | null, theirs: string | null): void {
  ctx.db.transaction(() => {
    const open = ctx.db.prepare('SELECT id FROM conflicts WHERE entity = ? AND local_id = ? AND kind = ? AND resolved IS NULL').get(entity, localId, kind) as { id: number } | undefined;
    if (open) {
      ctx.db.prepare('UPDATE conflicts SET base = ?, mine = ?, theirs = ?, fields = ? WHERE id = ?').run(base, mine, theirs, JSON.stringify(fields), open.id);
    } else {
      ctx.db.prepare('INSERT INTO conflicts (account_id, entity, local_id, kind, base, mine, theirs, fields, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(ctx.account.id, entity, localId, kind, base, mine, theirs, JSON.stringify(fields), new Date().toISOString());
      ctx.stats.conflicts++;
    }
    if (kind !== 'duplicate_on_service') {
      ctx.db.prepare("UPDATE outbox SET state = 'conflict', last_error = ? WHERE entity = ? AND local_id = ? AND state NOT IN ('committed')")
        .run(`${kind}: ${fields.join(', ')}`, entity, localId);
    }
  })();
}

/**
 * The service no longer has this farm or parcel, and `work` lies under it: a conflict, and every op under it
 * waits in 'conflict' (nothing is sent into a farm that no longer exists, nothing is deleted) until resolved.
 */
export function holdRemoteDeletion(ctx: AccountCtx, entity: 'farm' | 'parcel', localId: string, work: readonly OutboxRow[]): void {
  const row = getRow(ctx.db, entity, localId);
  if (!row) return;
  const base = entity === 'parcel' ? parcelBase(row as ParcelRow) : row.base;
  const what = describeWork(ctx.db, work);
  const fields = [
    'deleted on the service',
    `unsent here: ${what}`,
    `keep mine: re-create the ${entity} on the service and send that work; keep theirs: discard the ${entity} and that work here`,
  ];
  const mine = JSON.stringify(entity === 'farm' ? { name: row.name } : { name: row.name, work: what });
  ctx.db.transaction(() => {
    recordConflict(ctx, entity, localId, 'remote_delete', fields, base, mine, null);
    const id = (ctx.db.prepare("SELECT id FROM conflicts WHERE entity = ? AND local_id = ? AND kind = 'remote_delete' AND resolved IS NULL").get(entity, localId) as { id: number }).id;
    const park = ctx.db.prepare("UPDATE outbox SET state = 'conflict', next_attempt_at = NULL, last_error = ? WHERE id = ? AND state IN ('queued', 'in_flight', 'rejected', 'blocked', 'uncertain')");
    for (const o of work) park.run(`its ${entity} was deleted on the service: waiting for conflict #${id} (resolve ${id} --keep mine|theirs)`, o.id);
  })();
}

/** Deleted on the service with unsent work under it (see remote-deletes.ts): a conflict, nothing deleted. True if held. */
export function heldForWork(ctx: AccountCtx, entity: 'farm' | 'parcel', localId: string): boolean {
  const work = unsentWork(ctx.db, subtree(ctx.db, entity, localId));
  // A pending edit of the row itself is the classic remote-delete conflict (removedRemotely records it).
  if (!work.length || work.every((o) => o.entity === entity && o.local_id === localId)) return false;
  holdRemoteDeletion(ctx, entity, localId, work);
  return true;
}

/**
 * The service lists a farm or parcel again that a remote-delete conflict said was gone (a faulty answer, a proxy,
 * a restore): the conflict is void, and the work parked under it goes out as it was. Without this, `keep mine`
 * would create the farm a second time.
 */
export function listedAgain(db: Db, entity: 'farm' | 'parcel', localId: string): boolean {
  const open = db.prepare("SELECT id FROM conflicts WHERE entity = ? AND local_id = ? AND kind = 'remote_delete' AND resolved IS NULL").get(entity, localId) as { id: number } | undefined;
  if (!open) return false;
  db.prepare('UPDATE conflicts SET resolved = ? WHERE id = ?').run(`${new Date().toISOString()} void: listed by the service again`, open.id);
  const requeue = db.prepare("UPDATE outbox SET state = 'queued', next_attempt_at = NULL, last_error = NULL WHERE entity = ? AND local_id = ? AND state = 'conflict' AND (last_error LIKE 'remote_delete:%' OR last_error LIKE ?)");
  const t = subtree(db, entity, localId);
  const parked = `its ${entity} was deleted on the service: waiting for conflict #${open.id} %`;
  for (const id of t.farms) requeue.run('farm', id, parked);
  for (const id of t.parcels) requeue.run('parcel', id, parked);
  for (const id of t.crops) requeue.run('crop', id, parked);
  return true;
}

export interface ConflictRow { id: number; account_id: string; entity: Entity; local_id: string; kind: ConflictKind; base: string | null; mine: string | null; theirs: string | null; fields: string }

/**
 * keep 'mine': the local version goes to the service on the next sync (over the remote edit, or re-created
 * after a remote delete). keep 'theirs': the service's version replaces the local one. For a duplicate on
 * the service, 'mine' asks the engine to delete the duplicates (returned), 'theirs' keeps them.
 */
export function resolveConflict(db: Db, id: number, choice: 'mine' | 'theirs'): { deleteOnService: number[]; effect: string | null } {
  return db.transaction(() => {
    const c = db.prepare('SELECT * FROM conflicts WHERE id = ? AND resolved IS NULL').get(id) as ConflictRow | undefined;
    if (!c) throw new Error(`No open conflict #${id}`);
    const reopen = () => db.prepare("UPDATE outbox SET state = 'queued', next_attempt_at = NULL, last_error = NULL WHERE entity = ? AND local_id = ? AND state = 'conflict'").run(c.entity, c.local_id);
    const drop = () => db.prepare("UPDATE outbox SET state = 'committed', last_error = 'resolved: kept the service version' WHERE entity = ? AND local_id = ? AND state = 'conflict'").run(c.entity, c.local_id);
    let deleteOnService: number[] = [];
    let effect: string | null = null;
    if (c.kind === 'edit') {
      if (choice === 'mine') {
        updateRow(db, c.entity, c.local_id, { base: c.theirs });
        reopen();
      } else {
        const theirs = JSON.parse(c.theirs ?? 'null') as ParcelState | CropState | { name: string } | null;
        if (theirs) {
          const cols = c.entity === 'parcel' ? parcelColumns(theirs as ParcelState) : c.entity === 'crop' ? cropColumns(theirs as CropState) : { name: (theirs as { name: string }).name };
          updateRow(db, c.entity, c.local_id, { ...cols, base: c.theirs });
        }
        drop();
      }
    } else if (c.kind === 'remote_delete' && c.entity !== 'crop') {
      effect = choice === 'mine' ? keepMineAfterRemoteDelete(db, c.entity, c.local_id) : keepTheirsAfterRemoteDelete(db, c.entity, c.local_id);
    } else if (c.kind === 'remote_delete') {
      if (choice === 'mine') {
        db.prepare('DELETE FROM outbox WHERE entity = ? AND local_id = ? AND state != ?').run(c.entity, c.local_id, 'committed');
        updateRow(db, c.entity, c.local_id, { server_id: null, key: null, base: null, deleted: 0 });
        const row = getRow(db, c.entity, c.local_id);
        if (row) enqueue(db, row.account_id, c.entity, c.local_id, 'create');
      } else {
        drop();
        db.prepare(`DELETE FROM ${c.entity === 'farm' ? 'farms' : c.entity === 'parcel' ? 'parcels' : 'crops'} WHERE local_id = ?`).run(c.local_id);
      }
    } else if (c.kind === 'partial_batch') {
      if (choice === 'mine') {
        db.prepare("UPDATE outbox SET state = 'queued', attempts = 0, checks = 0, next_attempt_at = NULL, last_error = NULL WHERE entity = ? AND local_id = ? AND state = 'conflict'").run(c.entity, c.local_id);
      } else {
        drop();
        db.prepare('DELETE FROM parcels WHERE local_id = ?').run(c.local_id);
      }
    } else if (choice === 'mine') {
      deleteOnService = (JSON.parse(c.theirs ?? '{}') as { duplicates?: number[] }).duplicates ?? [];
    }
    db.prepare('UPDATE conflicts SET resolved = ? WHERE id = ?').run(`${new Date().toISOString()} ${choice}`, id);
    return { deleteOnService, effect };
  })();
}
