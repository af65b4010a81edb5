import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { groupCommit } from './group-commit.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode, MISSING_FARM_ID_MESSAGE, type ErrorDetail } from '../../../core/errors.ts';
import { validateParcelPatch, MAX_PARCELS_PER_REQUEST, type ValidParcel, type ParcelProblem } from '../../../core/parcels/validate.ts';
import { inlineValidator, RawJson, syntaxFirst, type ParcelValidator, type PreparedPatch } from '../../validation-pool.ts';
import { parcelColumnsOf, type ParcelColumns } from '../../../core/parcels/columns.ts';
import { preparePatch } from '../../validation-jobs.ts';
import { FARM_VISIBLE, scopeParams, type Scope } from '../scope.ts';
import { PARCEL_COLUMNS, featureArrayBody, parcelFeatureJson, type ParcelRow } from '../parcel-json.ts';
import type { Readable } from 'node:stream';
import { getAccountRow, parcelLimit } from './accounts.ts';

export interface VisibleFarm { id: number; account_id: string; organization_id: string }

export function visibleFarm(db: Db, scope: Scope, farmId: number): VisibleFarm {
  const f = cachedStatement(db, `SELECT f.id, f.account_id, f.organization_id FROM farms f WHERE f.id = @id AND f.organization_id = @org AND ${FARM_VISIBLE}`)
    .get({ id: farmId, ...scopeParams(scope) }) as VisibleFarm | undefined;
  if (!f) throw notFound('Farm');
  return f;
}

export function limitFor(db: Db, accountId: string): number {
  const a = getAccountRow(db, accountId);
  return a ? parcelLimit(a) : 0;
}

export const problemsToDetails = (problems: readonly ParcelProblem[]): ErrorDetail[] =>
  problems.map((p) => ({ index: p.index, path: p.path, code: p.code, message: p.message }));

export function invalidParcels(problems: readonly ParcelProblem[]): ApiError {
  const indexes = [...new Set(problems.map((p) => p.index))];
  const which = indexes.length === 1 ? `parcel ${indexes[0]} is invalid` : `parcels ${indexes.join(', ')} are invalid`;
  return new ApiError(ErrorCode.invalidParcels, `Nothing was created: ${which}. ${problems[0]?.message ?? ''}`.trim(), problemsToDetails(problems));
}

/** A parcel's area in whole micro-hectares, exactly as migration 004's triggers round it (farm totals stay exact). */
const MICRO_HECTARES = (col: string) => `CAST(round(${col} * 1000000) AS INTEGER)`;

/** Inserts already-validated parcels; the caller owns the transaction. */
export function insertParcels(db: Db, farmId: number, parcels: readonly (ValidParcel | ParcelColumns)[], midBatch?: (inserted: number) => void): ParcelRow[] {
  const t = now();
  const ins = cachedStatement(db, `INSERT INTO parcels (key, farm_id, name, source_type, point, geometry, hectares, metadata, minx, miny, maxx, maxy, created, modified)
    VALUES (@key, @farm_id, @name, @source_type, @point, @geometry, @hectares, @metadata, @minx, @miny, @maxx, @maxy, @created, @modified)`);
  const rtree = cachedStatement(db, 'INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)');
  const rows: ParcelRow[] = [];
  for (const p of parcels) {
    const row: ParcelRow = { id: 0, key: uuid(), farm_id: farmId, ...('source_type' in p ? p : parcelColumnsOf(p)), created: t, modified: t };
    row.id = Number(ins.run(row).lastInsertRowid);
    rtree.run(row.id, row.minx, row.maxx, row.miny, row.maxy);
    rows.push(row);
    midBatch?.(rows.length);
  }
  if (rows.length) {
    // The farm's totals move once per batch, in this transaction, with the rounding the delete and update triggers
    // use (migration 006 says why not a trigger per row): the rows just inserted are the farm's ids in this range.
    cachedStatement(db, `UPDATE farms SET modified = ?, parcel_count = parcel_count + ?,
      micro_hectares = micro_hectares + (SELECT SUM(${MICRO_HECTARES('hectares')}) FROM parcels WHERE farm_id = ? AND id BETWEEN ? AND ?)
      WHERE id = ?`).run(t, rows.length, farmId, rows[0]!.id, rows[rows.length - 1]!.id, farmId);
  } else {
    cachedStatement(db, 'UPDATE farms SET modified = ? WHERE id = ?').run(t, farmId);
  }
  return rows;
}

const BULK_KEYS = new Set(['farm', 'parcels']);

/** Created (the features, in request order), or nothing processed because the farm id is missing (the spec's 'Missing Farm ID'). */
export type BulkCreateResult = { created: true; json: string | Readable; count: number } | { created: false; message: string };

/** POST /api/parcels/: 1–50 parcels, all or nothing, in request order. */
export async function bulkCreate(db: Db, scope: Scope, body: unknown, validator: ParcelValidator = inlineValidator, midBatch?: (inserted: number) => void): Promise<BulkCreateResult> {
  const org = scope.organizationId;
  const request = await syntaxFirst(validator, org, body, () => bulkRequest(db, scope, body));
  if (request === null) {
    await validator.checkSyntax(org, body);
    return { created: false, message: MISSING_FARM_ID_MESSAGE };
  }
  const { parcels: valid, problems } = await validator.validate(org, request.parcels, request.maxHectares);
  if (problems.length) throw invalidParcels(problems);
  // Validation ran off this thread: the farm may have gone meanwhile, so look again inside the write.
  const rows = await groupCommit(db).submit(() => insertParcels(db, visibleFarm(db, scope, request.farmId).id, valid, midBatch));
  return { created: true, json: featureArrayBody(rows), count: rows.length };
}

/** The bulk create's envelope, farm and limit; null when the farm id is missing (the spec's 200 'Missing Farm ID'). */
function bulkRequest(db: Db, scope: Scope, body: unknown): { farmId: number; parcels: unknown[]; maxHectares: number } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(ErrorCode.validationFailed, 'The body must be a JSON object with farm and parcels');
  }
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !BULK_KEYS.has(k));
  if (unknown.length) {
    throw new ApiError(ErrorCode.validationFailed, `Unknown field(s): ${unknown.join(', ')}`,
      unknown.map((k) => ({ path: `body/${k}`, code: 'unknown_field', message: `unknown field '${k}'` })));
  }
  const farm = b.farm;
  if (farm === undefined || farm === null || (typeof farm === 'object' && !Array.isArray(farm) && ((farm as Record<string, unknown>).id ?? null) === null)) {
    return null;
  }
  const farmId = typeof farm === 'object' && !Array.isArray(farm) ? (farm as Record<string, unknown>).id : undefined;
  if (typeof farmId !== 'number' || !Number.isSafeInteger(farmId) || farmId < 1) {
    throw new ApiError(ErrorCode.validationFailed, 'farm must be an object whose id is a positive integer', [
      { path: 'body/farm/id', code: 'type', message: 'farm.id must be a positive integer' },
    ]);
  }
  const extraFarmKeys = Object.keys(farm as object).filter((k) => k !== 'id');
  if (extraFarmKeys.length) {
    throw new ApiError(ErrorCode.validationFailed, `Unknown field(s) in farm: ${extraFarmKeys.join(', ')}`,
      extraFarmKeys.map((k) => ({ path: `body/farm/${k}`, code: 'unknown_field', message: `unknown field '${k}' in farm` })));
  }
  const parcels = b.parcels;
  if (!Array.isArray(parcels) || parcels.length < 1 || parcels.length > MAX_PARCELS_PER_REQUEST) {
    throw new ApiError(ErrorCode.validationFailed, `parcels must be an array of 1 to ${MAX_PARCELS_PER_REQUEST} parcels`, [
      { path: 'body/parcels', code: Array.isArray(parcels) ? (parcels.length ? 'maxItems' : 'minItems') : 'type', message: `parcels must hold 1 to ${MAX_PARCELS_PER_REQUEST} items` },
    ]);
  }
  const f = visibleFarm(db, scope, farmId);
  return { farmId, parcels, maxHectares: limitFor(db, f.account_id) };
}

export function parcelRow(db: Db, scope: Scope, id: number): ParcelRow & { account_id: string } {
  const r = cachedStatement(db, `SELECT ${PARCEL_COLUMNS}, f.account_id FROM parcels p JOIN farms f ON f.id = p.farm_id
    WHERE p.id = @id AND f.organization_id = @org AND ${FARM_VISIBLE}`).get({ id, ...scopeParams(scope) }) as (ParcelRow & { account_id: string }) | undefined;
  if (!r) throw notFound('Parcel');
  return r;
}

export const getParcelJson = (db: Db, scope: Scope, id: number): string => parcelFeatureJson(parcelRow(db, scope, id));

export interface CheckedPatch { patch: PreparedPatch | null; problems: ParcelProblem[] }

/**
 * PATCH /api/parcels/{id}/ before its write: a body with a geometry (or a large one, still bytes) is validated on
 * the pool; name and metadata alone are cheap and left to patchParcel.
 */
export async function checkParcelPatch(db: Db, scope: Scope, id: number, body: unknown, validator: ParcelValidator): Promise<CheckedPatch | undefined> {
  const r = await syntaxFirst(validator, scope.organizationId, body, () => parcelRow(db, scope, id));
  const geom = body instanceof RawJson || (typeof body === 'object' && body !== null && (body as Record<string, unknown>).geom !== undefined);
  return geom ? validator.validatePatch(scope.organizationId, body, id, limitFor(db, r.account_id)) : undefined;
}

/**
 * PATCH replaces the whole metadata object (as the hosted service does); name and geom are revalidated, here or,
 * given `checked`, already by checkParcelPatch (the parcel is then looked up again: it may have gone meanwhile).
 */
export function patchParcel(db: Db, scope: Scope, id: number, body: unknown, checked?: CheckedPatch): string {
  return db.transaction(() => {
    const r = parcelRow(db, scope, id);
    const { patch, problems } = checked ?? inlinePatch(body, id, limitFor(db, r.account_id));
    if (!patch || problems.length) {
      throw new ApiError(ErrorCode.validationFailed, problems[0]?.message ?? 'Invalid patch', problemsToDetails(problems));
    }
    const next: ParcelRow = { ...r, modified: now() };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.metadata !== undefined) next.metadata = patch.metadata;
    if (patch.geom) {
      Object.assign(next, patch.geom);
      cachedStatement(db, 'UPDATE parcels_rtree SET minx = ?, maxx = ?, miny = ?, maxy = ? WHERE id = ?').run(next.minx, next.maxx, next.miny, next.maxy, id);
    }
    cachedStatement(db, `UPDATE parcels SET name = @name, source_type = @source_type, point = @point, geometry = @geometry, hectares = @hectares,
      metadata = @metadata, minx = @minx, miny = @miny, maxx = @maxx, maxy = @maxy, modified = @modified WHERE id = @id`).run({
      id, name: next.name, source_type: next.source_type, point: next.point, geometry: next.geometry, hectares: next.hectares,
      metadata: next.metadata, minx: next.minx, miny: next.miny, maxx: next.maxx, maxy: next.maxy, modified: next.modified,
    });
    return parcelFeatureJson(next);
  })();
}

function inlinePatch(body: unknown, id: number, maxHectares: number): CheckedPatch {
  const { patch, problems } = validateParcelPatch(body, id, { maxHectares });
  return { patch: patch ? preparePatch(patch) : null, problems };
}

export function deleteParcel(db: Db, scope: Scope, id: number): void {
  db.transaction(() => {
    parcelRow(db, scope, id);
    cachedStatement(db, 'DELETE FROM parcels WHERE id = ?').run(id);
  })();
}
