// Parcel requests on top of any Store: the bulk create's envelope, the validation pool and the PATCH's two paths.
// None of it is SQL; the store's writes (createBatch, update) are atomic and re-check what may have changed while
// the parcels were being validated off the request thread.
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.ts';
import { ErrorCode, MISSING_FARM_ID_MESSAGE, type ErrorDetail } from '../../core/errors.ts';
import { validateParcelPatch, MAX_PARCELS_PER_REQUEST, type ParcelProblem } from '../../core/parcels/validate.ts';
import { inlineValidator, RawJson, syntaxFirst, type ParcelValidator, type PreparedPatch } from '../validation-pool.ts';
import { preparePatch } from '../validation-jobs.ts';
import { featureArrayBody, parcelFeatureJson } from './parcel-json.ts';
import type { Scope } from './scope.ts';
import type { Store } from './store.ts';
export type { VisibleFarm, NewParcel } from './rows.ts';



export const problemsToDetails = (problems: readonly ParcelProblem[]): ErrorDetail[] =>
  problems.map((p) => ({ index: p.index, path: p.path, code: p.code, message: p.message }));

export function invalidParcels(problems: readonly ParcelProblem[]): ApiError {
  const indexes = [...new Set(problems.map((p) => p.index))];
  const which = indexes.length === 1 ? `parcel ${indexes[0]} is invalid` : `parcels ${indexes.join(', ')} are invalid`;
  return new ApiError(ErrorCode.invalidParcels, `Nothing was created: ${which}. ${problems[0]?.message ?? ''}`.trim(), problemsToDetails(problems));
}

const BULK_KEYS = new Set(['farm', 'parcels']);

/** Created (the features, in request order), or nothing processed because the farm id is missing (the spec's 'Missing Farm ID'). */
export type BulkCreateResult = { created: true; json: string | Readable; count: number } | { created: false; message: string };

/** POST /api/parcels/: 1–50 parcels, all or nothing, in request order. */
export async function bulkCreate(store: Store, scope: Scope, body: unknown, validator: ParcelValidator = inlineValidator, midBatch?: (inserted: number) => void): Promise<BulkCreateResult> {
  const org = scope.organizationId;
  const request = await syntaxFirst(validator, org, body, () => bulkRequest(store, scope, body));
  if (request === null) {
    await validator.checkSyntax(org, body);
    return { created: false, message: MISSING_FARM_ID_MESSAGE };
  }
  const { parcels: valid, problems } = await validator.validate(org, request.parcels, request.maxHectares);
  if (problems.length) throw invalidParcels(problems);
  // Validation ran off this thread: the farm may have gone meanwhile, so the store looks again inside the write.
  const rows = await store.parcels.createBatch(scope, request.farmId, valid, midBatch);
  return { created: true, json: featureArrayBody(rows), count: rows.length };
}

/** The bulk create's envelope, farm and limit; null when the farm id is missing (the spec's 200 'Missing Farm ID'). */
async function bulkRequest(store: Store, scope: Scope, body: unknown): Promise<{ farmId: number; parcels: unknown[]; maxHectares: number } | null> {
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
  const f = await store.farms.visible(scope, farmId);
  return { farmId, parcels, maxHectares: await store.accounts.parcelLimit(f.account_id) };
}

export const getParcelJson = async (store: Store, scope: Scope, id: number): Promise<string> => parcelFeatureJson(await store.parcels.get(scope, id));

export interface CheckedPatch { patch: PreparedPatch | null; problems: ParcelProblem[] }

/**
 * PATCH /api/parcels/{id}/ before its write: a body with a geometry (or a large one, still bytes) is validated on
 * the pool; name and metadata alone are cheap and left to patchParcel.
 */
export async function checkParcelPatch(store: Store, scope: Scope, id: number, body: unknown, validator: ParcelValidator): Promise<CheckedPatch | undefined> {
  const r = await syntaxFirst(validator, scope.organizationId, body, () => store.parcels.get(scope, id));
  const geom = body instanceof RawJson || (typeof body === 'object' && body !== null && (body as Record<string, unknown>).geom !== undefined);
  return geom ? validator.validatePatch(scope.organizationId, body, id, await store.accounts.parcelLimit(r.account_id)) : undefined;
}

/**
 * PATCH replaces the whole metadata object (as the hosted service does); name and geom are revalidated, here or,
 * given `checked`, already by checkParcelPatch. The store looks the parcel up again inside its write: it may have
 * gone meanwhile. Returns the parcel's Feature.
 */
export async function patchParcel(store: Store, scope: Scope, id: number, body: unknown, checked?: CheckedPatch): Promise<string> {
  const { patch, problems } = checked ?? inlinePatch(body, id, await store.accounts.parcelLimit((await store.parcels.get(scope, id)).account_id));
  if (!patch || problems.length) {
    // A parcel gone since checkParcelPatch is a 404 before the body's problems, as when both were one transaction.
    if (checked) await store.parcels.get(scope, id);
    throw new ApiError(ErrorCode.validationFailed, problems[0]?.message ?? 'Invalid patch', problemsToDetails(problems));
  }
  return parcelFeatureJson(await store.parcels.update(scope, id, patch));
}

function inlinePatch(body: unknown, id: number, maxHectares: number): CheckedPatch {
  const { patch, problems } = validateParcelPatch(body, id, { maxHectares });
  return { patch: patch ? preparePatch(patch) : null, problems };
}
