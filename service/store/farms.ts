// POST /api/farms/ on top of any Store: the request's checks and its parcels' validation, which are not SQL. The
// store's farms.create repeats the checks that may change meanwhile (the account, the name) inside its write.
import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';
import { validateParcels, MAX_PARCELS_PER_REQUEST } from '../../core/parcels/validate.ts';
import { syntaxFirst, type ParcelValidator, type Validated } from '../validation-pool.ts';
import type { Farm } from '../../core/schemas/farms.ts';
import type { ParcelRow } from './parcel-json.ts';
import { invalidParcels } from './parcels.ts';
import { requireAccount, type Scope } from './scope.ts';
import type { Store } from './store.ts';
export type { OrphanFarm } from './rows.ts';


export type FarmInput = { farm: { name: string }; parcels?: unknown[] };

export function farmName(value: unknown): string {
  if (typeof value !== 'string' || !value.trim() || value.length > 255) {
    throw new ApiError(ErrorCode.validationFailed, 'farm.name must be a non-empty string of at most 255 characters', [
      { path: 'body/farm/name', code: 'name_missing', message: 'farm.name is required' },
    ]);
  }
  return value.trim();
}

async function farmRequest(store: Store, scope: Scope, body: FarmInput): Promise<{ accountId: string; name: string; inputs: unknown[] }> {
  const accountId = requireAccount(scope, 'Creating a farm');
  await store.accounts.getActive(scope.organizationId, accountId);
  const name = farmName(body.farm.name);
  const inputs = body.parcels ?? [];
  if (inputs.length > MAX_PARCELS_PER_REQUEST) {
    throw new ApiError(ErrorCode.validationFailed, `A farm is created with at most ${MAX_PARCELS_PER_REQUEST} parcels; add more with POST /api/parcels/`);
  }
  return { accountId, name, inputs };
}

/** POST /api/farms/ before its write: the checks, then the parcels validated on the pool. */
export async function validateFarmParcels(store: Store, scope: Scope, body: FarmInput, validator: ParcelValidator): Promise<Validated> {
  const { accountId, inputs } = await syntaxFirst(validator, scope.organizationId, body, () => farmRequest(store, scope, body));
  return validator.validate(scope.organizationId, inputs, await store.accounts.parcelLimit(accountId));
}

/**
 * POST /api/farms/: the farm and its parcels are created together or not at all. The parcels are validated here
 * unless `validated` (validateFarmParcels) is given; the checks run again either way (time may have passed).
 */
export async function createFarm(store: Store, scope: Scope, body: FarmInput, validated?: Validated): Promise<{ farm: Farm; rows: ParcelRow[] }> {
  const { accountId, name, inputs } = await farmRequest(store, scope, body);
  const { parcels, problems } = validated ?? validateParcels(inputs, { maxHectares: await store.accounts.parcelLimit(accountId) });
  if (problems.length) throw invalidParcels(problems);
  return store.farms.create(scope, name, parcels);
}
