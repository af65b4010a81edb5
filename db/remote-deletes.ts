// A farm or parcel the service no longer has, and the local work under it.
//
// A remote deletion never takes unsent local work with it: a farm deleted on the service while the mirror holds
// parcels never sent, edited parcels or new crops in it is a conflict, and every row under it stays until the user
// decides (`resolve --keep mine` re-creates the farm and sends the work, `--keep theirs` discards it). Without
// this, the foreign keys cascaded the farm's deletion over work nobody had sent.
import type { Db } from './open.ts';
import type { Entity, OutboxRow, ParcelRow } from './types.ts';
import { deleteRow, getRow, updateRow } from './rows.ts';
import { enqueue } from './outbox.ts';
import { parcelBase } from './parcel-state.ts';
import {
  closeConflictsOf, dropOpenOps, eachRow, keepConflict, keepServiceDeletion, openConflictId, parkUnderConflict, requeueUnsent, subtree, unsentWork, type Subtree,
} from './conflicts.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The service no longer has this farm or parcel, and unsent work lies under it: a conflict, and every op under it waits
 * in 'conflict' (nothing is sent into a farm that no longer exists, nothing is deleted) until resolved; in one
 * transaction. Null when there is no such work (a pending edit of the row itself is the classic remote-delete
 * conflict, which the pull records); else whether the conflict is new.
 */
export function holdForRemoteDeletion(db: Db, accountId: string, entity: 'farm' | 'parcel', localId: string): { opened: boolean } | null {
  return db.transaction(() => {
    const work = unsentWork(db, subtree(db, entity, localId));
    if (!work.length || work.every((o) => o.entity === entity && o.local_id === localId)) return null;
    const row = getRow(db, entity, localId);
    if (!row) return { opened: false };
    const what = describeWork(db, work);
    const fields = [
      'deleted on the service',
      `unsent here: ${what}`,
      `keep mine: re-create the ${entity} on the service and send that work; keep theirs: discard the ${entity} and that work here`,
    ];
    const opened = keepConflict(db, {
      account_id: accountId, entity, local_id: localId, kind: 'remote_delete', fields,
      base: entity === 'parcel' ? parcelBase(row as ParcelRow) : row.base,
      mine: JSON.stringify(entity === 'farm' ? { name: row.name } : { name: row.name, work: what }), theirs: null,
    });
    const id = openConflictId(db, entity, localId, 'remote_delete')!;
    parkUnderConflict(db, work.map((o) => o.id), `its ${entity} was deleted on the service: waiting for conflict #${id} (resolve ${id} --keep mine|theirs)`);
    return { opened };
  })();
}

/** "2 parcels never sent ('North', 'South'), 1 edited parcel ('East')": what a remote deletion would have taken. */
export function describeWork(db: Db, work: readonly OutboxRow[]): string {
  const names = (entity: Entity, ids: Set<string>) => {
    const list = [...ids].slice(0, 5).map((id) => `'${(getRow(db, entity, id) as { name?: string } | undefined)?.name ?? id}'`);
    return `${list.join(', ')}${ids.size > 5 ? `, and ${ids.size - 5} more` : ''}`;
  };
  const group = (entity: Entity, create: boolean) => new Set(work.filter((o) => o.entity === entity && (o.op === 'create') === create).map((o) => o.local_id));
  const parts: string[] = [];
  const farmEdit = group('farm', false);
  if (farmEdit.size) parts.push('the farm renamed');
  const newParcels = group('parcel', true);
  if (newParcels.size) parts.push(`${plural(newParcels.size, 'parcel')} never sent (${names('parcel', newParcels)})`);
  const edited = group('parcel', false);
  if (edited.size) parts.push(`${plural(edited.size, 'edited parcel')} (${names('parcel', edited)})`);
  const crops = new Set(work.filter((o) => o.entity === 'crop').map((o) => o.local_id));
  if (crops.size) parts.push(`${plural(crops.size, 'new or edited crop')}`);
  return parts.join(', ');
}

/**
 * `resolve --keep mine` of a remote deletion: every row under it that the service had is created again (new
 * server ids; nothing of it exists there any more, so nothing can be duplicated), work never sent is queued
 * again, and rows deleted here are dropped. Children wait for their parent's new server id as for any create.
 */
export function keepMineAfterRemoteDelete(db: Db, entity: Entity, localId: string): string {
  const t = subtree(db, entity, localId);
  let recreated = 0;
  let requeued = 0;
  for (const [e, id] of eachRow(t)) {
    const row = getRow(db, e, id) as { server_id: number | null; deleted: number; account_id: string } | undefined;
    if (!row) continue;
    if (row.deleted) {
      dropOpenOps(db, e, id);
      deleteRow(db, e, id);
    } else if (row.server_id !== null || e === entity) {
      dropOpenOps(db, e, id);
      updateRow(db, e, id, { server_id: null, key: null, base: null, deleted: 0 });
      enqueue(db, row.account_id, e, id, 'create');
      recreated++;
    } else {
      requeueUnsent(db, e, id);
      requeued++;
    }
  }
  closeConflictsUnder(db, t, 'mine');
  return `the next sync creates ${plural(recreated, 'row')} again on the service (the ${entity} and what it held there) and sends ${plural(requeued, 'unsent row')}`;
}

/** `resolve --keep theirs`: the row and everything under it go, with their unsent work. */
export function keepTheirsAfterRemoteDelete(db: Db, entity: Entity, localId: string): string {
  const t = subtree(db, entity, localId);
  for (const [e, id] of eachRow(t)) keepServiceDeletion(db, e, id);
  closeConflictsUnder(db, t, 'theirs');
  deleteRow(db, entity, localId);
  return `the ${entity} and the ${plural(t.parcels.length + t.crops.length - (entity === 'parcel' ? 1 : 0), 'row')} under it were removed here, with their unsent work`;
}

/** Conflicts of rows under the resolved one are settled with it (their rows were re-created or are gone). */
function closeConflictsUnder(db: Db, t: Subtree, choice: 'mine' | 'theirs'): void {
  const at = `${new Date().toISOString()} ${choice} (with the row above it)`;
  for (const [e, id] of eachRow(t)) closeConflictsOf(db, e, id, at);
}
