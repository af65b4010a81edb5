import { Type, type Static } from '@sinclair/typebox';
import type { OutboxRow, ParcelRow, ParcelState, ParcelToSend, SendOp } from '../db/types.ts';
import { getRow } from '../db/rows.ts';
import { markDeleteInFlight, markInFlight, bookCreated, refuseInBatch, settleReconciled } from '../db/op-transitions.ts';
import { parcelBase } from '../db/parcel-state.ts';
import { writeBatchMarks, type BatchMark } from '../db/batch-marks.ts';
import type { NewConflict } from '../db/conflicts.ts';
import type { ConflictKind } from '../db/types.ts';
import { validateParcel, PARCEL_RULES_VERSION } from '../core/parcels/validate.ts';
import { withoutPlace } from '../core/parcels/problems.ts';
import { ParcelFeature } from '../core/schemas/parcels.ts';
import { expectShape, SchemaMismatch } from '../core/schemas/check.ts';
import { IntegerId, Uuid } from '../core/schemas/common.ts';
import { JsonText, NetworkError, errorMessage, type Answered, type HttpResponse } from './http.ts';
import { call, commitOps, finishDelete, handleCommon, markUncertain, recheckAt, reject, sendIdempotent, settledFor, uncertainNow, type AccountCtx, throwIfCancelled } from './context.ts';
import { REF_KEY, parcelColumns, parcelInput, parcelStateOfFeature, parcelStateOfRow } from './state.ts';
import { heldForWork } from './conflicts.ts';
import { ScannedCreated, scanCreated } from './created-scan.ts';
import { farmListing } from './listing.ts';
import { mergeParcel } from './merge.ts';
import { pushUpdate, type UpdateSpec } from './updates.ts';

/**
 * What a 201 must hold for its booking: each created parcel's id, key and client reference. The rest of each feature
 * (the geometry above all) is read only for a parcel edited meanwhile, and checked then (commitCreated): checking
 * every coordinate of the 400 answers of a push of 20,000 parcels held the push's thread about 0.2 s (profiled on a
 * busy machine; 0.03 s warmed up in isolation), against 0.002 s for the ids.
 */
const Created = Type.Array(Type.Object({ id: IntegerId, properties: Type.Object({ key: Uuid, metadata: Type.Object({}) }) }));
/**
 * A created parcel as a 201 gives it, checked as far as Created: a ParcelFeature when it is whole. Read by the scanner
 * (created-scan.ts), it holds only what Created checks, and `text` gives the whole feature's JSON.
 */
export type CreatedFeature = Static<typeof Created>[number] & { text?: () => string };
/** A parcel this close to the account's limit is sent alone, so a server-side rejection cannot sink a batch. */
export const nearLimit = (row: Pick<ParcelRow, 'hectares'>, limit: number): boolean => row.hectares >= 0.98 * limit;

/** Books a 201 (db/op-transitions.ts bookCreated): the service's ids into the rows and the ops committed. */
export function commitCreated(ctx: AccountCtx, pairs: readonly { op: SendOp; feature: CreatedFeature }[], mark?: BatchMark): void {
  const uncertain = uncertainNow(ctx);
  ctx.stats.committed += bookCreated(ctx.db, pairs, uncertain, mark).committed;
}

/** Sends one batch of parcel creates; every outcome leaves each op in a definite state. */
export async function sendBatch(ctx: AccountCtx, farmServerId: number, all: readonly Item[]): Promise<void> {
  // The in-flight mark commits before the request leaves: a crash from here on means "reconcile", never "resend".
  throwIfCancelled(ctx); // before the mark: a stopped run leaves this queued, not uncertain
  const marked = markInFlight(ctx.db, all.map((b) => b.op.id));
  const batch = marked.size === all.length ? all : all.filter((b) => marked.has(b.op.id));
  if (batch.length) await sendMarked(ctx, farmServerId, batch);
}

/** The created parcels of a 201 that answers this batch, each in the place of the parcel it was sent for; else null. */
function createdFeatures(res: HttpResponse | NetworkError, batch: readonly Item[]): CreatedFeature[] | null {
  if (res instanceof NetworkError || res.status !== 201) return null;
  let features: CreatedFeature[];
  try {
    features = expectShape(Created, res.body instanceof ScannedCreated ? res.body.features : res.body, 'bulk create response');
  } catch (err) {
    if (err instanceof SchemaMismatch) return null;
    throw err;
  }
  const matches = features.length === batch.length && features.every((f, i) => (f.properties.metadata as Record<string, unknown>)[REF_KEY] === batch[i]!.row.local_id);
  return matches ? features : null;
}

/** Books a 201: the service's ids into the rows. sendMarked's default books at once; a group commit may defer it. */
export type Book = (pairs: readonly { op: SendOp; feature: CreatedFeature }[]) => void;

/**
 * Sends a batch whose ops are already marked in flight (committed, durably), and settles every op. `book` writes the
 * ids of a 201; until it does, the ops are in flight on disk: a crash meanwhile means reconciliation, never a resend.
 * `answered` is told the answer's status as soon as its bytes are in (ServiceClient.send), before any of this.
 */
export async function sendMarked(ctx: AccountCtx, farmServerId: number, batch: readonly Item[], book: Book = (pairs) => commitCreated(ctx, pairs), answered?: Answered): Promise<void> {
  const ops = batch.map((b) => b.op);
  const body = new JsonText(`{"farm":{"id":${farmServerId}},"parcels":[${batch.map((b) => b.json ?? JSON.stringify(parcelInput(b.row.local_id, parcelStateOfRow(b.row)))).join(',')}]}`);
  // The 201 is scanned for what the booking needs rather than parsed whole (created-scan.ts).
  const res = await call(ctx, 'POST', '/api/parcels/', body, ops.length, scanCreated, answered);
  const features = createdFeatures(res, batch);
  if (features) {
    book(batch.map((b, i) => ({ op: b.op, feature: features[i]! })));
    return;
  }
  // Any other outcome is settled by the rules of ops marked one by one: batches marked by their rows (the push's
  // group commit, db/batch-marks.ts) get their marks written into their ops first.
  writeBatchMarks(ctx.db, ctx.account.id);
  if (handleCommon(ctx, ops.map((o) => ({ ...o, attempts: o.attempts + 1 })), res, true)) return;
  const r = res as Exclude<typeof res, NetworkError>;
  if (r.status === 201) {
    try {
      expectShape(Created, r.body instanceof ScannedCreated ? r.body.features : r.body, 'bulk create response');
      markUncertain(ctx, ops, 'the 201 does not match the batch sent');
    } catch (err) {
      if (!(err instanceof SchemaMismatch)) throw err;
      markUncertain(ctx, ops, err.message);
    }
    return;
  }
  if (r.status === 200) {
    // 200 + message: nothing was processed. Not a success, and resending the same batch would fail the same way.
    reject(ctx, ops, `The service did not process the batch: ${errorMessage(r)}`);
    return;
  }
  if (r.status === 400 || r.status === 413) {
    await isolateInvalid(ctx, farmServerId, batch, r.body);
    return;
  }
  if (r.status === 404) {
    farmGone(ctx, batch[0]!.row.farm_local_id, ops);
    return;
  }
  reject(ctx, ops, `Unexpected answer: ${errorMessage(r)}`);
}

/**
 * A 400 created nothing. When the service names the invalid parcels, they are rejected with its reasons and
 * the rest go again at once; otherwise the batch is bisected until each bad parcel stands alone.
 */
async function isolateInvalid(ctx: AccountCtx, farmServerId: number, batch: readonly Item[], body: unknown): Promise<void> {
  const errors = (typeof body === 'object' && body !== null ? (body as { errors?: unknown }).errors : undefined);
  const named = new Map<number, string[]>();
  if (Array.isArray(errors)) {
    for (const e of errors) {
      const idx = (e as { index?: unknown }).index;
      const msg = (e as { message?: unknown }).message;
      if (typeof idx === 'number' && idx >= 0 && idx < batch.length) named.set(idx, [...(named.get(idx) ?? []), withoutPlace(String(msg ?? 'invalid'))]);
    }
  }
  const reason = (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') ? (body as { message: string }).message : 'invalid';
  const ids = batch.map((b) => b.op.id);
  if (batch.length === 1) {
    refused(ctx, ids, [{ id: ids[0]!, reason: named.get(0)?.join('; ') ?? reason }]);
    return;
  }
  if (named.size > 0) {
    refused(ctx, ids, [...named].map(([i, msgs]) => ({ id: ids[i]!, reason: msgs.join('; ') })));
    const rest = batch.filter((_, i) => !named.has(i)).map((b) => ({ ...b, op: { ...b.op, attempts: 0 } }));
    if (rest.length) await sendBatch(ctx, farmServerId, rest);
    return;
  }
  refused(ctx, ids, []);
  const mid = Math.ceil(batch.length / 2);
  const fresh = batch.map((b) => ({ ...b, op: { ...b.op, attempts: 0 } }));
  await sendBatch(ctx, farmServerId, fresh.slice(0, mid));
  await sendBatch(ctx, farmServerId, fresh.slice(mid));
}

/** The parcels a 400 named are rejected, and the whole batch's attempts go back to 0 (it created nothing). */
function refused(ctx: AccountCtx, batch: readonly number[], ops: readonly { id: number; reason: string }[]): void {
  refuseInBatch(ctx.db, batch, ops);
  ctx.stats.rejected += ops.length;
}

/** A queued create and its row; `json` is the request form of the row, once validItems has built it. */
export type Item = { op: SendOp; row: ParcelToSend; json?: string };

/**
 * A row stamped as valid under the current rules (migration 002) needs no second validation: its user fields have
 * not been written since, and only the account's limit can have moved. Metadata already holding the reference key
 * takes the general path, so the key is replaced rather than repeated.
 */
const trusted = (row: ParcelToSend, limit: number): boolean =>
  row.checked === PARCEL_RULES_VERSION && row.hectares <= limit && !row.metadata.includes(`"${REF_KEY}"`);

/**
 * The request form of a trusted row, spliced from its stored JSON text: byte for byte what
 * JSON.stringify(parcelInput(…)) gives, without parsing and re-serializing every geometry.
 */
export function parcelJson(row: ParcelToSend): string {
  const ref = `"${REF_KEY}":${JSON.stringify(row.local_id)}`;
  const metadata = row.metadata === '{}' ? `{${ref}}` : `${row.metadata.slice(0, -1)},${ref}}`;
  const geom = row.source_type === 'Point' && row.point
    ? `{"type":"Feature","properties":{"metadata":{"hectares":${JSON.stringify(row.hectares)}}},"geometry":{"type":"Point","coordinates":${row.point}}}`
    : `{"type":"Feature","properties":{},"geometry":${row.geometry}}`;
  return `{"name":${JSON.stringify(row.name)},"metadata":${metadata},"geom":${geom}}`;
}

/**
 * The service's own rules, run locally: a parcel the client knows is bad is rejected here and never sent.
 * Rows validated when they were written (and unchanged since) are trusted; the rest are validated now.
 */
export function validItems(ctx: AccountCtx, items: readonly Item[], limit: number): Item[] {
  const valid: Item[] = [];
  for (const item of items) {
    if (trusted(item.row, limit)) {
      valid.push({ op: item.op, row: item.row, json: parcelJson(item.row) });
      continue;
    }
    const input = parcelInput(item.row.local_id, parcelStateOfRow(item.row));
    const v = validateParcel(input, 0, { maxHectares: limit });
    if (v.problems.length) reject(ctx, [item.op], v.problems.map((p) => p.message).join('; '));
    else valid.push({ ...item, json: JSON.stringify(input) });
  }
  return valid;
}

/**
 * Uncertain creates are looked up by their client reference in the farm's listing. Found: committed with
 * the service's ids. Not found: believed only after the settle time has passed since sending, then requeued.
 * The same reference twice on the service: the first is kept and the duplicate offered for deletion.
 */
export async function reconcileParcelCreates(ctx: AccountCtx, farmServerId: number, ops: readonly OutboxRow[]): Promise<'done' | 'waiting'> {
  const listing = await farmListing(ctx, farmServerId);
  if (!listing) {
    const row = getRow(ctx.db, 'parcel', ops[0]!.local_id);
    if (row) farmGone(ctx, row.farm_local_id, ops);
    return 'done';
  }
  const byRef = new Map<string, ParcelFeature[]>();
  for (const f of listing.features) {
    const ref = parcelStateOfFeature(f).ref;
    if (ref) byRef.set(ref, [...(byRef.get(ref) ?? []), f]);
  }
  const found: { op: OutboxRow; feature: ParcelFeature }[] = [];
  const conflicts: NewConflict[] = [];
  const conflict = (localId: string, kind: ConflictKind, fields: string[], theirs: string | null): NewConflict =>
    ({ account_id: ctx.account.id, entity: 'parcel', local_id: localId, kind, fields, base: null, mine: null, theirs });
  const missing: OutboxRow[] = [];
  for (const op of ops) {
    const hits = byRef.get(op.local_id);
    if (hits?.length) {
      found.push({ op, feature: hits[0]! });
      if (hits.length > 1) conflicts.push(conflict(op.local_id, 'duplicate_on_service', [`the service holds it ${hits.length} times (ids ${hits.map((h) => h.id).join(', ')})`], JSON.stringify({ duplicates: hits.slice(1).map((h) => h.id) })));
    } else missing.push(op);
  }
  // Not on the pages read is not "absent" when the listing stopped short: wait, never resend. One empty listing proves
  // nothing either (the service may still be committing): believe it only on the second check, and only once the
  // settle time has passed since the outcome became unknown.
  const settled = listing.complete ? missing.filter((o) => settledFor(ctx, o)) : [];
  const waiting = listing.complete ? missing.filter((o) => !settled.includes(o)) : missing;
  // Part of an atomic batch present and part absent cannot come from the service: someone deleted parcels since.
  // Resending could resurrect them, so the user decides.
  const batchIds = new Set(found.map((f) => f.op.batch_id));
  const partial = new Set(settled.filter((o) => o.batch_id !== null && batchIds.has(o.batch_id)));
  for (const o of partial) conflicts.push(conflict(o.local_id, 'partial_batch', ['missing from its committed batch'], null));
  const now = ctx.opts.now();
  const uncertain = uncertainNow(ctx);
  const settledHere = settleReconciled(ctx.db, {
    found, conflicts, absent: settled.filter((o) => !partial.has(o)),
    notYet: listing.complete ? waiting.map((o) => ({ id: o.id, at: recheckAt(ctx, o, now) })) : [],
  }, uncertain);
  ctx.stats.committed += settledHere.committed;
  ctx.stats.conflicts += settledHere.conflicts;
  return waiting.length ? 'waiting' : 'done';
}

/** How a parcel is updated (sync/updates.ts): the whole metadata, and the geometry only when it changed. */
export const parcelUpdates: UpdateSpec<ParcelRow, ParcelState, typeof ParcelFeature> = {
  entity: 'parcel',
  wire: ParcelFeature,
  target: (_ctx, row) => ({ path: `/api/parcels/${row.server_id}/`, extra: null }),
  stateOfRow: parcelStateOfRow,
  stateOfWire: (f) => parcelStateOfFeature(f).state,
  base: (row) => {
    const known = parcelBase(row);
    return known ? (JSON.parse(known) as ParcelState) : null;
  },
  merge: mergeParcel,
  body(row, merged, theirs) {
    const body: Record<string, unknown> = { id: row.server_id, name: merged.name, metadata: parcelInput(row.local_id, merged).metadata };
    if (JSON.stringify(merged.geometry) !== JSON.stringify(theirs.geometry) || merged.hectares !== theirs.hectares) body.geom = parcelInput(row.local_id, merged).geom;
    return body;
  },
  // The row is then what the service holds: its own base (db/parcel-state.ts).
  columnsAfter: (f) => ({ ...parcelColumns(parcelStateOfFeature(f).state), base: null }),
};

export const pushParcelUpdate = (ctx: AccountCtx, op: OutboxRow): Promise<void> => pushUpdate(ctx, op, parcelUpdates);

export async function pushParcelDelete(ctx: AccountCtx, op: OutboxRow): Promise<void> {
  const row = getRow(ctx.db, 'parcel', op.local_id);
  if (!row) { commitOps(ctx, [op.id]); return; }
  if (row.server_id === null) return; // its create is still being settled
  markDeleteInFlight(ctx.db, op.id, new Date(ctx.opts.now()).toISOString());
  const res = await sendIdempotent(ctx, op, 'DELETE', `/api/parcels/${row.server_id}/`);
  if (!res) return;
  finishDelete(ctx, op, res);
}

/**
 * The farm is gone from the service (404 on a create into it): the work in it waits as a conflict on the farm
 * (see db/remote-deletes.ts), to be re-created with it or discarded, never rejected and then cascaded away.
 */
function farmGone(ctx: AccountCtx, farmLocalId: string, ops: readonly SendOp[]): void {
  if (!heldForWork(ctx, 'farm', farmLocalId)) reject(ctx, ops, 'The farm no longer exists on the service');
}
