// The change feed (GET /api/changes/, docs/api.md "Changes"): what changed in one account since a cursor, each
// object as its own GET answers it, deletions as tombstones. The stores keep one row per changed object with the
// number of its latest change (sqlite/migrations/007: the account's counter; postgres/migrations/003 and 004: one
// sequence, numbers gapped per account); this module turns their rows into the answer, the same for both stores.
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';
import type { Store } from './store.ts';
import type { Scope } from './scope.ts';
import { parcelFeatureJson } from './parcel-json.ts';
import { plantJson } from './plants.ts';
import type { TObject } from '@sinclair/typebox';
import { Farm } from '../../core/schemas/farms.ts';
import { Crop } from '../../core/schemas/crops.ts';

import { CHANGES_PAGE_BYTES, type ChangeRead, type ChangeRow } from './rows.ts';

export type { ChangeEntity, ChangeRead, ChangeRow, ChangeState } from './rows.ts';

/** The cursor names its account by a short hash of the id, so that one account's cursor is refused for another. */
const accountTag = (accountId: string): string => createHash('sha256').update(accountId).digest('base64url').slice(0, 10);

export const encodeCursor = (accountId: string, seq: number): string => `${seq}.${accountTag(accountId)}`;

const CURSOR = /^(0|[1-9][0-9]{0,15})\.([A-Za-z0-9_-]{10})$/;

/** The sequence number of a cursor of this account; 400 invalid_cursor for anything else. */
export function decodeCursor(accountId: string, cursor: string): number {
  const m = CURSOR.exec(cursor);
  const seq = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(seq)) {
    throw new ApiError(ErrorCode.invalidCursor, 'since is not a cursor of GET /api/changes/: pass the `cursor` of an earlier answer unchanged');
  }
  if (m[2] !== accountTag(accountId)) {
    throw new ApiError(ErrorCode.invalidCursor, "since is another account's cursor: each account's changes have their own cursor");
  }
  return seq;
}

export const expired = (why: string): ApiError =>
  new ApiError(ErrorCode.cursorExpired, `${why}: list everything again (GET /api/farms/ and each farm's parcels, crops, plants), after taking a fresh cursor with GET /api/changes/`);

/** The answer's JSON, built as text so that each object is the exact text its own GET answers. */
export interface ChangesPage { cursor: string; items: string[]; more: boolean }

/**
 * One page of the account's changes after `since` (undefined: the current cursor alone): at most `limit`, and fewer
 * where their objects would pass `maxBytes` (at least one). Tombstones older than
 * `horizonSeconds` before `nowMs` are dropped first; a cursor from before them, or ahead of the account's latest
 * number (a database restored or reset), is 410 cursor_expired.
 */
export async function readChanges(store: Store, scope: Scope, accountId: string, since: string | undefined, limit: number,
  horizonSeconds: number, nowMs: number, maxBytes: number = CHANGES_PAGE_BYTES): Promise<ChangesPage> {
  const from = since === undefined || since === '' ? null : decodeCursor(accountId, since);
  const read = await store.changes.read(scope, from, limit + 1, Math.floor(nowMs / 1000) - horizonSeconds, maxBytes);
  // The account's own latest number where the store's is every account's (ChangeState.latest).
  const latest = read.latest ?? read.seq;
  if (from === null) return { cursor: encodeCursor(accountId, latest), items: [], more: false };
  if (from < read.prunedSeq) throw expired(`The cursor is older than the change feed's horizon (${Math.round(horizonSeconds / 86400 * 10) / 10} days): deletions since were forgotten`);
  if (from > read.seq) throw expired('The cursor is ahead of every change this service has recorded (its data was reset or restored)');
  // More follow when there were more rows than asked for, or the page filled up before them (CHANGES_PAGE_BYTES).
  const more = read.cut === true || read.rows.length > limit;
  const rows = more ? read.rows.slice(0, limit) : read.rows;
  const items: string[] = [];
  for (const r of rows) items.push(await itemJson(store, scope, read, r));
  // The last page ends at the account's number, not its last row's: rows moved forward by later changes leave gaps.
  return { cursor: encodeCursor(accountId, more ? rows[rows.length - 1]!.seq : Math.max(from, latest)), items, more };
}

const tombstone = (r: ChangeRow): string => `{"entity":"${r.entity}","id":${r.id},"deleted":true}`;

/**
 * One change as `{entity, id, deleted: false, data}`, data being what the object's GET answers now. Parcels and
 * plants come from the read's own snapshot; farms and crops (few) from their getters, which may see a newer state
 * than the rows (the later change follows; merging twice is harmless). An object the scope no longer sees is a
 * tombstone: its own is on its way.
 */
async function itemJson(store: Store, scope: Scope, read: ChangeRead, r: ChangeRow): Promise<string> {
  if (r.deleted) return tombstone(r);
  const live = (data: string) => `{"entity":"${r.entity}","id":${r.id},"deleted":false,"data":${data}}`;
  if (r.entity === 'parcel' || r.entity === 'plant') {
    const parcel = r.entity === 'parcel' ? read.parcels.get(r.id) : undefined;
    const plant = r.entity === 'plant' ? read.plants.get(r.id) : undefined;
    return parcel ? live(parcelFeatureJson(parcel)) : plant ? live(plantJson(plant)) : tombstone({ ...r, deleted: true });
  }
  try {
    return live(r.entity === 'farm' ? inSchemaOrder(Farm, await store.farms.get(scope, r.id)) : inSchemaOrder(Crop, await store.crops.get(scope, r.id)));
  } catch (e) {
    if (e instanceof ApiError && e.code === ErrorCode.notFound) return tombstone({ ...r, deleted: true });
    throw e;
  }
}

/**
 * An object's JSON with its keys in its schema's order, as its GET answers it (the route's response schema serializes
 * it so): "exactly what the object's GET answers" is its text too, not only its value.
 */
function inSchemaOrder(schema: TObject, value: object): string {
  const v = value as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(Object.keys(schema.properties).filter((k) => v[k] !== undefined).map((k) => [k, v[k]])));
}

export function changesJson(page: ChangesPage, next: string | null): string {
  return `{"cursor":${JSON.stringify(page.cursor)},"changes":[${page.items.join(',')}],"next":${next === null ? 'null' : JSON.stringify(next)}}`;
}
