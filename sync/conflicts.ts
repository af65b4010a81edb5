import type { Db } from '../db/open.ts';
import type { ConflictKind, Entity, ParcelRow } from '../db/types.ts';
import { deleteRow, getRow, updateRow } from '../db/rows.ts';
import { enqueue } from '../db/outbox.ts';
import {
  closeConflict, dropOpenOps, eachRow, keepConflict, keepServiceVersion, openConflictById, openConflictId,
  releaseParked, reopenHeld, resendHeld, subtree,
} from '../db/conflicts.ts';
import type { AccountCtx } from './context.ts';
import { cropColumns, parcelColumns } from './state.ts';
import { holdForRemoteDeletion, keepMineAfterRemoteDelete, keepTheirsAfterRemoteDelete } from '../db/remote-deletes.ts';
import type { ConflictRow, CropRow, CropState, ParcelState } from '../db/types.ts';
import { parcelLimit } from '../db/settings.ts';
import { REF_KEY, cropStateOfRow, parcelStateOfRow } from './state.ts';
import { FieldChoiceError, chooseCropFields, chooseParcelFields, mergedParcelProblems, type FieldChoices, type Side } from './conflict-fields.ts';
import { jsonEqual } from './merge.ts';

export type { ConflictKind, ConflictRow } from '../db/types.ts';

/** Keeps a conflict for the user (db/conflicts.ts keepConflict), counted in the run's report when it is new. */
export function recordConflict(ctx: AccountCtx, entity: Entity, localId: string, kind: ConflictKind, fields: string[], base: string | null, mine: string | null, theirs: string | null): void {
  if (keepConflict(ctx.db, { account_id: ctx.account.id, entity, local_id: localId, kind, fields, base, mine, theirs })) ctx.stats.conflicts++;
}

/** Deleted on the service with unsent work under it (db/remote-deletes.ts): a conflict, nothing deleted. True if held. */
export function heldForWork(ctx: AccountCtx, entity: 'farm' | 'parcel', localId: string): boolean {
  const held = holdForRemoteDeletion(ctx.db, ctx.account.id, entity, localId);
  if (held?.opened) ctx.stats.conflicts++;
  return held !== null;
}

/**
 * The service lists a farm or parcel again that a remote-delete conflict said was gone (a faulty answer, a proxy,
 * a restore): the conflict is void, and the work parked under it goes out as it was. Without this, `keep mine`
 * would create the farm a second time.
 */
export function listedAgain(db: Db, entity: 'farm' | 'parcel', localId: string): boolean {
  const open = openConflictId(db, entity, localId, 'remote_delete');
  if (open === undefined) return false;
  closeConflict(db, open, `${new Date().toISOString()} void: listed by the service again`);
  const parked = `its ${entity} was deleted on the service: waiting for conflict #${open} %`;
  for (const [e, id] of eachRow(subtree(db, entity, localId))) releaseParked(db, e, id, parked);
  return true;
}

/**
 * keep 'mine': the local version goes to the service on the next sync (over the remote edit, or re-created
 * after a remote delete). keep 'theirs': the service's version replaces the local one. For a duplicate on
 * the service, 'mine' asks the engine to delete the duplicates (returned), 'theirs' keeps them.
 */
export function resolveConflict(db: Db, id: number, choice: 'mine' | 'theirs', fields?: FieldChoices): { deleteOnService: number[]; effect: string | null } {
  return db.transaction(() => {
    const c = openConflictById(db, id);
    if (!c) throw new Error(`No open conflict #${id}`);
    const reopen = () => reopenHeld(db, c.entity, c.local_id);
    const drop = () => keepServiceVersion(db, c.entity, c.local_id);
    let deleteOnService: number[] = [];
    let effect: string | null = null;
    if (fields && Object.keys(fields).length) {
      if (c.kind !== 'edit' || c.entity === 'farm') throw new FieldChoiceError(`Conflict #${id} (${c.entity}, ${c.kind}) is settled whole: keep mine or keep theirs`);
      choice = mergeFields(db, c, choice, fields);
    }
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
        dropOpenOps(db, c.entity, c.local_id);
        updateRow(db, c.entity, c.local_id, { server_id: null, key: null, base: null, deleted: 0 });
        const row = getRow(db, c.entity, c.local_id);
        if (row) enqueue(db, row.account_id, c.entity, c.local_id, 'create');
      } else {
        drop();
        deleteRow(db, c.entity, c.local_id);
      }
    } else if (c.kind === 'partial_batch') {
      if (choice === 'mine') {
        resendHeld(db, c.entity, c.local_id);
      } else {
        drop();
        deleteRow(db, 'parcel', c.local_id);
      }
    } else if (choice === 'mine') {
      deleteOnService = (JSON.parse(c.theirs ?? '{}') as { duplicates?: number[] }).duplicates ?? [];
    }
    closeConflict(db, id, `${new Date().toISOString()} ${choice}`);
    return { deleteOnService, effect };
  })();
}

/**
 * An edit conflict settled field by field (conflict-fields.ts): the row takes the merged state with the service's
 * side as its base, so its held update sends only what was kept from mine. Returns the whole-side choice that is left
 * to apply: 'theirs' when every field came from the service (nothing to send), 'mine' otherwise (the row now holds
 * the merge, and keep mine reopens its ops over the service's base).
 */
function mergeFields(db: Db, c: ConflictRow, rest: Side, fields: FieldChoices): Side {
  const row = getRow(db, c.entity, c.local_id);
  const theirs = JSON.parse(c.theirs ?? 'null') as unknown;
  if (!row || !theirs) throw new FieldChoiceError(`Conflict #${c.id} has no two sides to take fields from`);
  let merged: ParcelState | CropState;
  let cols: Record<string, unknown>;
  if (c.entity === 'parcel') {
    const m = chooseParcelFields(parcelStateOfRow(row as ParcelRow), theirs as ParcelState, fields, rest);
    const problems = mergedParcelProblems(c.local_id, m, parcelLimit(db, c.account_id));
    if (problems.length) throw new FieldChoiceError(`These choices make a parcel the service would refuse: ${problems.join('; ')}`);
    [merged, cols] = [m, { ...parcelColumns(m) }];
  } else {
    const m = chooseCropFields(cropStateOfRow(row as CropRow), theirs as CropState, fields, rest);
    [merged, cols] = [m, cropColumns(m)];
  }
  // The client reference aside: the service's side carries it in its metadata, the row need not.
  if (jsonEqual(withoutRef(merged), withoutRef(theirs))) return 'theirs';
  updateRow(db, c.entity, c.local_id, cols);
  return 'mine';
}

/** A parcel state without its client reference (a crop's as it is). */
function withoutRef(state: unknown): unknown {
  const s = state as { metadata?: Record<string, unknown> };
  if (!s?.metadata) return state;
  const { [REF_KEY]: _ref, ...metadata } = s.metadata;
  return { ...s, metadata };
}
