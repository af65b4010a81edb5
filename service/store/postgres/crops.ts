// Crops on PostgreSQL: SQLite's sqlite/crops.ts statement for statement, with the same checks in the same order (so
// the same error wins when several apply), the same ordering and the same rows. Where SQLite's single writer made a
// read-then-write safe, the row read is locked here: the crop FOR UPDATE before a patch, the parcel and family
// FOR KEY SHARE before a crop points at them.
import { inTransaction } from './tx.ts';
import type pg from 'pg';
import { now, uuid } from '../clock.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { requireAccount, type Scope } from '../scope.ts';
import { checkDates, type CurrentCrop } from '../crops.ts';
import type { CropStore } from '../store.ts';
import type { Crop, CropCreateRequest, CropPatchRequest } from '../../../core/schemas/crops.ts';
import {
  ACCOUNT_VISIBLE, FARM_VISIBLE, PARCEL_VISIBLE, READ_SNAPSHOT, isId, scopeArgs, visibleParcel, type Queryable,
} from './crops-sql.ts';
import { familyByName, familyExists, insertFamily } from './crop-families.ts';

interface CropRow {
  id: number; key: string; parcel_id: number | null; name: string | null; campaign: string | null; area: number | null;
  variety: string | null; harvested_qty: number | null; sowing: string | null; closure: string | null; is_active: boolean;
  created: string; modified: string; f_id: number | null; f_key: string | null; f_name: string | null; f_observation: string | null;
}

// A crop on a parcel is visible exactly when its parcel is; a crop without a parcel follows its account.
const CROP_VISIBLE = `c.organization_id = $1 AND ((c.parcel_id IS NOT NULL AND ${PARCEL_VISIBLE('c.parcel_id')})
  OR (c.parcel_id IS NULL AND ${ACCOUNT_VISIBLE('c.account_id')}))`;
const CROP_SELECT = `SELECT c.id, c.key, c.parcel_id, c.name, c.campaign, c.area, c.variety, c.harvested_qty, c.sowing, c.closure,
  c.is_active, c.created, c.modified, cf.id AS f_id, cf.key AS f_key, cf.name AS f_name, cf.observation AS f_observation
  FROM crops c LEFT JOIN crop_families cf ON cf.id = c.family_id`;
// Newest sowing first, undated last, then the newest entry. sowing is the API's date text, compared bytewise
// (COLLATE "C") as SQLite's BINARY collation does, not by the database's locale.
const ROTATION_ORDER = 'c.sowing IS NULL, c.sowing COLLATE "C" DESC, c.id DESC';

function toCrop(r: CropRow): Crop {
  return {
    id: r.id, key: r.key,
    family: r.f_id === null ? null : { id: r.f_id, key: r.f_key!, name: r.f_name!, observation: r.f_observation ?? '' },
    name: r.name, campaign: r.campaign, area: r.area, variety: r.variety, harvested_qty: r.harvested_qty,
    sowing: r.sowing, closure: r.closure, is_active: r.is_active, created: r.created, modified: r.modified, parcel: r.parcel_id,
  };
}

/** The scope's crop or 404; with `lock`, held FOR UPDATE until the transaction ends (a patch reads, then writes). */
async function cropRow(q: Queryable, scope: Scope, id: number, lock = false): Promise<CropRow> {
  if (!isId(id)) throw notFound('Crop');
  const r = await q.query<CropRow>(`${CROP_SELECT} WHERE c.id = $3 AND ${CROP_VISIBLE}${lock ? ' FOR UPDATE OF c' : ''}`, [...scopeArgs(scope), id]);
  if (!r.rows[0]) throw notFound('Crop');
  return r.rows[0];
}

/**
 * family on write: an existing family by id, or a name found case-insensitively (created when new). A new family
 * belongs to the whole organization, so only the API key may create one this way; a bearer token gets 403.
 */
async function resolveFamily(q: Queryable, scope: Scope, input: CropCreateRequest['family']): Promise<number | null> {
  const organizationId = scope.organizationId;
  if (input === undefined || input === null) return null;
  if ('id' in input) {
    // FOR KEY SHARE: the family stays until the crop that points at it is committed.
    const f = isId(input.id)
      ? (await q.query<{ id: number }>('SELECT id FROM crop_families WHERE id = $1 AND (organization_id IS NULL OR organization_id = $2) FOR KEY SHARE',
        [input.id, organizationId])).rows[0]
      : undefined;
    if (!f) {
      throw new ApiError(ErrorCode.validationFailed, `Crop family ${input.id} does not exist`, [
        { path: 'body/family/id', code: 'not_found', message: `crop family ${input.id} does not exist` },
      ]);
    }
    return f.id;
  }
  const name = input.name.trim();
  const found = await familyByName(q, organizationId, name);
  if (found !== undefined) return found;
  if (scope.via !== 'api_key') {
    throw new ApiError(ErrorCode.forbidden, `There is no crop family named '${name}': adding one to the organization needs its API key`, [
      { path: 'body/family/name', code: 'forbidden', message: 'an account token can only pick an existing crop family' },
    ]);
  }
  const created = await insertFamily(q, organizationId, name, input.observation ?? '');
  if (created) return created.id;
  // Another process created the name since the lookup above and has committed (the insert waited for it): this crop
  // takes that family, as it would have found it under SQLite had the two requests come one after the other.
  const winner = await familyByName(q, organizationId, name);
  if (winner === undefined) throw familyExists(name);
  return winner;
}

/** Where a crop lives: its parcel's account (the parcel locked), or the acting account for a crop without a parcel. */
async function placeCrop(q: Queryable, scope: Scope, parcel: number | null): Promise<string> {
  if (parcel === null) return requireAccount(scope, 'A crop without a parcel');
  try {
    return (await visibleParcel(q, scope, parcel, true)).account_id;
  } catch (e) {
    if (!(e instanceof ApiError && e.code === ErrorCode.notFound)) throw e;
    throw new ApiError(ErrorCode.validationFailed, `Parcel ${parcel} does not exist`, [
      { path: 'body/parcel', code: 'not_found', message: `parcel ${parcel} does not exist` },
    ]);
  }
}

async function createCrop(pool: pg.Pool, scope: Scope, body: CropCreateRequest): Promise<Crop> {
  return inTransaction(pool, async (c) => {
    const parcel = body.parcel ?? null;
    const accountId = await placeCrop(c, scope, parcel);
    checkDates(body.sowing ?? null, body.closure ?? null);
    const t = now();
    const family = await resolveFamily(c, scope, body.family);
    const r = await c.query<{ id: number }>(`INSERT INTO crops (organization_id, key, account_id, parcel_id, family_id, name, campaign, area, variety,
      harvested_qty, sowing, closure, is_active, created, modified) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING id`, [
      scope.organizationId, uuid(), accountId, parcel, family, body.name ?? null, body.campaign ?? null, body.area ?? null, body.variety ?? null,
      body.harvested_qty ?? null, body.sowing ?? null, body.closure ?? null, body.is_active !== false, t,
    ]);
    return toCrop(await cropRow(c, scope, r.rows[0]!.id));
  });
}

const PLAIN_FIELDS = ['name', 'campaign', 'area', 'variety', 'harvested_qty', 'sowing', 'closure'] as const;

async function patchCrop(pool: pg.Pool, scope: Scope, id: number, body: CropPatchRequest): Promise<Crop> {
  return inTransaction(pool, async (c) => {
    const r = await cropRow(c, scope, id, true);
    const sets: string[] = [];
    const args: unknown[] = [scope.organizationId, id];
    const set = (column: string, value: unknown) => { args.push(value); sets.push(`${column} = $${args.length}`); };
    for (const f of PLAIN_FIELDS) if (body[f] !== undefined) set(f, body[f]);
    if (body.is_active !== undefined) set('is_active', body.is_active);
    // The same order as SQLite: family, then parcel, then dates, so the same error wins when several apply.
    if (body.family !== undefined) set('family_id', await resolveFamily(c, scope, body.family));
    if (body.parcel !== undefined && body.parcel !== r.parcel_id) {
      const accountId = await placeCrop(c, scope, body.parcel);
      set('parcel_id', body.parcel);
      set('account_id', accountId);
    }
    checkDates(body.sowing !== undefined ? body.sowing : r.sowing, body.closure !== undefined ? body.closure : r.closure);
    if (sets.length) {
      set('modified', now());
      await c.query(`UPDATE crops SET ${sets.join(', ')} WHERE organization_id = $1 AND id = $2`, args);
    }
    return toCrop(await cropRow(c, scope, id));
  });
}

async function deleteCrop(pool: pg.Pool, scope: Scope, id: number): Promise<void> {
  if (!isId(id)) throw notFound('Crop');
  // The check and the delete in one statement: atomic without a transaction.
  const r = await pool.query(`DELETE FROM crops c WHERE c.id = $3 AND ${CROP_VISIBLE}`, [...scopeArgs(scope), id]);
  if (r.rowCount === 0) throw notFound('Crop');
}

async function listCrops(pool: pg.Pool, scope: Scope, q: { parcel?: number; is_active?: boolean; limit: number; offset: number }): Promise<{ count: number; results: Crop[] }> {
  const where = [CROP_VISIBLE];
  const args: unknown[] = scopeArgs(scope);
  if (q.parcel !== undefined) {
    // An id past bigint matches nothing, as in SQLite.
    if (!isId(q.parcel)) where.push('false');
    else { args.push(q.parcel); where.push(`c.parcel_id = $${args.length}`); }
  }
  if (q.is_active !== undefined) { args.push(q.is_active); where.push(`c.is_active = $${args.length}`); }
  const w = where.join(' AND ');
  // The count and the page from one snapshot, as SQLite's two reads between writes were.
  return inTransaction(pool, async (c) => {
    const count = (await c.query<{ n: number }>(`SELECT COUNT(*) AS n FROM crops c WHERE ${w}`, args)).rows[0]!.n;
    const rows = (await c.query<CropRow>(`${CROP_SELECT} WHERE ${w} ORDER BY c.id LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, q.limit, q.offset])).rows;
    return { count, results: rows.map(toCrop) };
  }, READ_SNAPSHOT);
}

/** The whole rotation of a parcel, past and current, newest sowing first (undated last). */
async function parcelCrops(pool: pg.Pool, scope: Scope, parcelId: number): Promise<Crop[]> {
  return inTransaction(pool, async (c) => {
    await visibleParcel(c, scope, parcelId);
    const rows = (await c.query<CropRow>(`${CROP_SELECT} WHERE c.organization_id = $1 AND c.parcel_id = $2 ORDER BY ${ROTATION_ORDER}`,
      [scope.organizationId, parcelId])).rows;
    return rows.map(toCrop);
  }, READ_SNAPSHOT);
}

/**
 * The current crop of every visible parcel: among its active entries, the first in rotation order. One query for
 * the whole scope; DISTINCT ON keeps each parcel's first row, in parcel order as SQLite's Map was filled.
 */
async function currentCrops(pool: pg.Pool, scope: Scope): Promise<Map<number, CurrentCrop>> {
  const rows = (await pool.query<CurrentCrop & { parcel_id: number }>(`SELECT DISTINCT ON (c.parcel_id)
      c.parcel_id, c.name, c.variety, c.campaign, c.sowing, cf.name AS family
    FROM crops c JOIN parcels p ON p.organization_id = c.organization_id AND p.id = c.parcel_id
    JOIN farms f ON f.organization_id = p.organization_id AND f.id = p.farm_id
    LEFT JOIN crop_families cf ON cf.id = c.family_id
    WHERE c.organization_id = $1 AND c.is_active AND ${FARM_VISIBLE}
    ORDER BY c.parcel_id, ${ROTATION_ORDER}`, scopeArgs(scope))).rows;
  const out = new Map<number, CurrentCrop>();
  for (const { parcel_id, ...crop } of rows) out.set(parcel_id, crop);
  return out;
}

/** The crop group of the PostgreSQL store. */
export function pgCrops(pool: pg.Pool): CropStore {
  return {
    get: async (scope, id) => toCrop(await cropRow(pool, scope, id)),
    list: (scope, q) => listCrops(pool, scope, q),
    create: (scope, body) => createCrop(pool, scope, body),
    patch: (scope, id, body) => patchCrop(pool, scope, id, body),
    delete: (scope, id) => deleteCrop(pool, scope, id),
    ofParcel: (scope, parcelId) => parcelCrops(pool, scope, parcelId),
    currentByParcel: (scope) => currentCrops(pool, scope),
  };
}

/** Which of `ids` are crops the scope sees, each held FOR KEY SHARE (a plant import about to point at them). */
export async function visibleCropIds(q: Queryable, scope: Scope, ids: readonly number[]): Promise<Set<number>> {
  const r = await q.query<{ id: number }>(`SELECT c.id FROM crops c WHERE c.id = ANY($3::bigint[]) AND ${CROP_VISIBLE} FOR KEY SHARE OF c`,
    [...scopeArgs(scope), ids.filter(isId)]);
  return new Set(r.rows.map((x) => x.id));
}
