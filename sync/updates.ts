// One loop for every update, whatever the entity: fetch the service's version, merge three-way against the base,
// PATCH the merge, book the answer. Each entity only says how its rows, its wire shape and its PATCH body look
// (UpdateSpec). The farm and crop loops had drifted from the parcel one: they did not mark the op in flight, took a
// 404 to the PATCH for a refusal, and wrote the answer over an edit made while the PATCH was out.
import type { TSchema, Static } from '@sinclair/typebox';
import type { Entity, OutboxRow, Row } from '../db/types.ts';
import { getRow, updateRow } from '../db/rows.ts';
import { expectShape } from '../core/schemas/check.ts';
import { NetworkError, errorMessage, type HttpResponse } from './http.ts';
import { call, commitOps, handleCommon, mergeBase, recordSent, REFUSED_UNDONE, reject, retryLater, type AccountCtx } from './context.ts';
import { recordConflict } from './conflicts.ts';
import { jsonEqual, type Json } from './merge.ts';

export interface UpdateSpec<R extends Row, S, W extends TSchema, X = null> {
  entity: Entity;
  /** The service's representation of one item (GET and PATCH answer with it). */
  wire: W;
  /** The item's path on the service, and what its body needs (a crop: its parcel's server id); null: not yet sendable. */
  target(ctx: AccountCtx, row: R): { path: string; extra: X } | null;
  stateOfRow(row: R): S;
  stateOfWire(w: Static<W>): S;
  /** The last state known on the service (the merge's ancestor), or null when none is stored. */
  base(row: R): S | null;
  merge(base: S, mine: S, theirs: S): { merged: S; conflicts: string[] };
  body(row: R, merged: S, theirs: S, extra: X): unknown;
  /** The row's columns once the service answered with `w` (the state it now holds), base included. */
  columnsAfter(w: Static<W>): Partial<R>;
}

/** PATCHes an item after a three-way merge with the service's current state; overlapping edits become conflicts. */
export async function pushUpdate<R extends Row, S, W extends TSchema, X>(ctx: AccountCtx, op: OutboxRow, spec: UpdateSpec<R, S, W, X>): Promise<void> {
  const row = getRow(ctx.db, spec.entity, op.local_id) as R | undefined;
  if (!row || row.server_id === null || row.deleted) return;
  const target = spec.target(ctx, row);
  if (target === null) return;
  const mine = spec.stateOfRow(row);
  const gone = () => {
    const base = spec.base(row);
    recordConflict(ctx, spec.entity, row.local_id, 'remote_delete', ['deleted on the service'], base === null ? null : JSON.stringify(base), JSON.stringify(mine), null);
  };
  const got = await call(ctx, 'GET', target.path);
  if (handleCommon(ctx, [op], got, false)) return;
  const g = got as HttpResponse;
  if (g.status === 404) {
    gone();
    return;
  }
  const theirs = spec.stateOfWire(expectShape(spec.wire, g.body, spec.entity));
  const base = mergeBase(op, spec.base(row) ?? theirs, theirs);
  const { merged, conflicts } = spec.merge(base, mine, theirs);
  if (conflicts.length) {
    recordConflict(ctx, spec.entity, row.local_id, 'edit', conflicts, JSON.stringify(base), JSON.stringify(mine), JSON.stringify(theirs));
    return;
  }
  // In flight, with the state it asks for (see mergeBase): a lost answer then reads as landed, not as a conflict.
  recordSent(ctx, op, merged, true);
  const res = await call(ctx, 'PATCH', target.path, spec.body(row, merged, theirs, target.extra), 1);
  // A PATCH carries the whole state: repeating it is harmless, so "uncertain" simply means "send it again".
  if (res instanceof NetworkError || (res.status >= 500 && !REFUSED_UNDONE.has(res.status))) {
    const net = res instanceof NetworkError ? res : null;
    retryLater(ctx, [op], net ? net.message : errorMessage(res as HttpResponse), null, net !== null && !net.sent, net?.notTried);
    return;
  }
  if (handleCommon(ctx, [op], res, false)) return;
  if (res.status === 200) {
    const after = expectShape(spec.wire, res.body, spec.entity);
    ctx.db.transaction(() => {
      // An edit made while the PATCH was out stays pending (its own op goes next): the row takes the answer only if
      // it did not move; otherwise only its base does.
      const now = getRow(ctx.db, spec.entity, op.local_id) as R | undefined;
      if (now && jsonEqual(spec.stateOfRow(now) as Json, mine as Json)) updateRow(ctx.db, spec.entity, op.local_id, spec.columnsAfter(after));
      else updateRow(ctx.db, spec.entity, op.local_id, { base: JSON.stringify(spec.stateOfWire(after)) });
      commitOps(ctx, [op.id]);
    })();
    return;
  }
  if (res.status === 404) {
    gone();
    return;
  }
  reject(ctx, [op], errorMessage(res));
}
