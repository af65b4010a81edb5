import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { requireAccount, type Scope } from '../scope.ts';
import { ACCOUNT_VISIBLE, FARM_VISIBLE, scopeParams } from './scope-sql.ts';
import { checkDates, type CropQuery, type CurrentCrop } from '../crops.ts';
import { parcelRow } from './parcels.ts';
import type { Crop, CropCreateRequest, CropFamily, CropPatchRequest } from '../../../core/schemas/crops.ts';

interface CropRow {
  id: number; key: string; organization_id: string; account_id: string | null; parcel_id: number | null; family_id: number | null;
  name: string | null; campaign: string | null; area: number | null; variety: string | null; harvested_qty: number | null;
  sowing: string | null; closure: string | null; is_active: number; created: string; modified: string;
  f_id: number | null; f_key: string | null; f_name: string | null; f_observation: string | null;
}

// A crop on a parcel is visible exactly when its parcel is; a crop without a parcel follows its account.
const CROP_VISIBLE = `c.organization_id = @org AND (
  (c.parcel_id IS NOT NULL AND EXISTS (SELECT 1 FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE p.id = c.parcel_id AND ${FARM_VISIBLE}))
  OR (c.parcel_id IS NULL AND ${ACCOUNT_VISIBLE('c.account_id')}))`;
const CROP_SELECT = `SELECT c.*, cf.id AS f_id, cf.key AS f_key, cf.name AS f_name, cf.observation AS f_observation
  FROM crops c LEFT JOIN crop_families cf ON cf.id = c.family_id`;

function toCrop(r: CropRow): Crop {
  return {
    id: r.id, key: r.key,
    family: r.f_id === null ? null : { id: r.f_id, key: r.f_key!, name: r.f_name!, observation: r.f_observation ?? '' },
    name: r.name, campaign: r.campaign, area: r.area, variety: r.variety, harvested_qty: r.harvested_qty,
    sowing: r.sowing, closure: r.closure, is_active: r.is_active === 1, created: r.created, modified: r.modified, parcel: r.parcel_id,
  };
}

function cropRow(db: Db, scope: Scope, id: number): CropRow {
  const r = cachedStatement(db, `${CROP_SELECT} WHERE c.id = @id AND ${CROP_VISIBLE}`).get({ id, ...scopeParams(scope) }) as CropRow | undefined;
  if (!r) throw notFound('Crop');
  return r;
}

export const getCrop = (db: Db, scope: Scope, id: number): Crop => toCrop(cropRow(db, scope, id));

export function listFamilies(db: Db, organizationId: string): CropFamily[] {
  return db.prepare('SELECT id, key, name, observation FROM crop_families WHERE organization_id IS NULL OR organization_id = ? ORDER BY name_norm, id')
    .all(organizationId) as CropFamily[];
}

export function createFamily(db: Db, organizationId: string, name: string, observation = ''): CropFamily {
  const trimmed = name.trim();
  if (!trimmed) throw new ApiError(ErrorCode.validationFailed, 'A crop family needs a name');
  const existing = db.prepare('SELECT id FROM crop_families WHERE name_norm = ? AND (organization_id IS NULL OR organization_id = ?)')
    .get(trimmed.toLowerCase(), organizationId);
  if (existing) throw new ApiError(ErrorCode.conflict, `A crop family named '${trimmed}' already exists`);
  const key = uuid();
  const id = Number(db.prepare('INSERT INTO crop_families (key, organization_id, name, name_norm, observation, created) VALUES (?, ?, ?, ?, ?, ?)')
    .run(key, organizationId, trimmed, trimmed.toLowerCase(), observation, now()).lastInsertRowid);
  return { id, key, name: trimmed, observation };
}

/**
 * family on write: an existing family by id, or a name found case-insensitively (created when new). A new
 * family belongs to the whole organization, so only the API key may create one this way, as with
 * POST /api/crop-families/; an account's bearer token picks among the existing ones.
 */
function resolveFamily(db: Db, scope: Scope, input: CropCreateRequest['family']): number | null {
  const organizationId = scope.organizationId;
  if (input === undefined || input === null) return null;
  if ('id' in input) {
    const f = db.prepare('SELECT id FROM crop_families WHERE id = ? AND (organization_id IS NULL OR organization_id = ?)').get(input.id, organizationId) as
      | { id: number }
      | undefined;
    if (!f) {
      throw new ApiError(ErrorCode.validationFailed, `Crop family ${input.id} does not exist`, [
        { path: 'body/family/id', code: 'not_found', message: `crop family ${input.id} does not exist` },
      ]);
    }
    return f.id;
  }
  const name = input.name.trim();
  const found = db.prepare('SELECT id FROM crop_families WHERE name_norm = ? AND (organization_id IS NULL OR organization_id = ?) ORDER BY organization_id NULLS FIRST LIMIT 1')
    .get(name.toLowerCase(), organizationId) as { id: number } | undefined;
  if (found) return found.id;
  if (scope.via !== 'api_key') {
    throw new ApiError(ErrorCode.forbidden, `There is no crop family named '${name}': adding one to the organization needs its API key`, [
      { path: 'body/family/name', code: 'forbidden', message: 'an account token can only pick an existing crop family' },
    ]);
  }
  return createFamily(db, organizationId, name, input.observation ?? '').id;
}

/** Where a crop lives: its parcel's account, or the acting account for a crop without a parcel. */
function placeCrop(db: Db, scope: Scope, parcel: number | null): { accountId: string } {
  if (parcel === null) return { accountId: requireAccount(scope, 'A crop without a parcel') };
  try {
    return { accountId: parcelRow(db, scope, parcel).account_id };
  } catch {
    throw new ApiError(ErrorCode.validationFailed, `Parcel ${parcel} does not exist`, [
      { path: 'body/parcel', code: 'not_found', message: `parcel ${parcel} does not exist` },
    ]);
  }
}

export function createCrop(db: Db, scope: Scope, body: CropCreateRequest): Crop {
  return db.transaction(() => {
    const parcel = body.parcel ?? null;
    const { accountId } = placeCrop(db, scope, parcel);
    checkDates(body.sowing ?? null, body.closure ?? null);
    const t = now();
    const id = Number(cachedStatement(db, `INSERT INTO crops (key, organization_id, account_id, parcel_id, family_id, name, campaign, area, variety,
      harvested_qty, sowing, closure, is_active, created, modified) VALUES (@key, @org, @acc, @parcel, @family, @name, @campaign, @area,
      @variety, @harvested_qty, @sowing, @closure, @is_active, @t, @t)`).run({
      key: uuid(), org: scope.organizationId, acc: accountId, parcel, family: resolveFamily(db, scope, body.family),
      name: body.name ?? null, campaign: body.campaign ?? null, area: body.area ?? null, variety: body.variety ?? null,
      harvested_qty: body.harvested_qty ?? null, sowing: body.sowing ?? null, closure: body.closure ?? null,
      is_active: body.is_active === false ? 0 : 1, t,
    }).lastInsertRowid);
    return getCrop(db, scope, id);
  })();
}

const PLAIN_FIELDS = ['name', 'campaign', 'area', 'variety', 'harvested_qty', 'sowing', 'closure'] as const;

export function patchCrop(db: Db, scope: Scope, id: number, body: CropPatchRequest): Crop {
  return db.transaction(() => {
    const r = cropRow(db, scope, id);
    const sets: string[] = [];
    const args: Record<string, unknown> = { id };
    for (const f of PLAIN_FIELDS) {
      if (body[f] !== undefined) { sets.push(`${f} = @${f}`); args[f] = body[f]; }
    }
    if (body.is_active !== undefined) { sets.push('is_active = @is_active'); args.is_active = body.is_active ? 1 : 0; }
    if (body.family !== undefined) { sets.push('family_id = @family'); args.family = resolveFamily(db, scope, body.family); }
    if (body.parcel !== undefined && body.parcel !== r.parcel_id) {
      const { accountId } = placeCrop(db, scope, body.parcel);
      sets.push('parcel_id = @parcel', 'account_id = @acc');
      Object.assign(args, { parcel: body.parcel, acc: accountId });
    }
    checkDates(body.sowing !== undefined ? body.sowing : r.sowing, body.closure !== undefined ? body.closure : r.closure);
    if (sets.length) {
      sets.push('modified = @modified');
      args.modified = now();
      db.prepare(`UPDATE crops SET ${sets.join(', ')} WHERE id = @id`).run(args);
    }
    return getCrop(db, scope, id);
  })();
}

export function deleteCrop(db: Db, scope: Scope, id: number): void {
  db.transaction(() => {
    cropRow(db, scope, id);
    db.prepare('DELETE FROM crops WHERE id = ?').run(id);
  })();
}

/** The whole rotation history of a parcel, past and current, newest sowing first (undated entries last). */
export function parcelCrops(db: Db, scope: Scope, parcelId: number): Crop[] {
  parcelRow(db, scope, parcelId);
  return (cachedStatement(db, `${CROP_SELECT} WHERE c.parcel_id = ? ORDER BY c.sowing IS NULL, c.sowing DESC, c.id DESC`).all(parcelId) as CropRow[]).map(toCrop);
}

export function listCrops(db: Db, scope: Scope, q: CropQuery): { count: number; results: Crop[] } {
  const where = [CROP_VISIBLE];
  const args: Record<string, unknown> = { ...scopeParams(scope), limit: q.limit, offset: q.offset };
  if (q.parcel !== undefined) { where.push('c.parcel_id = @parcel'); args.parcel = q.parcel; }
  if (q.is_active !== undefined) { where.push('c.is_active = @active'); args.active = q.is_active ? 1 : 0; }
  const w = where.join(' AND ');
  const count = (db.prepare(`SELECT COUNT(*) AS n FROM crops c WHERE ${w}`).get(args) as { n: number }).n;
  const rows = db.prepare(`${CROP_SELECT} WHERE ${w} ORDER BY c.id LIMIT @limit OFFSET @offset`).all(args) as CropRow[];
  return { count, results: rows.map(toCrop) };
}

/**
 * The current crop of every visible parcel of the scope: among its active entries (is_active), the newest
 * sowing, undated last, then the newest entry — the same order as GET /api/parcels/{id}/crops/. One query for
 * the whole account instead of one per parcel (5,000 parcels would mean 5,000 statements).
 */
export function currentCrops(db: Db, scope: Scope): Map<number, CurrentCrop> {
  const rows = cachedStatement(db, `SELECT c.parcel_id, c.name, c.variety, c.campaign, c.sowing, cf.name AS family
    FROM crops c JOIN parcels p ON p.id = c.parcel_id JOIN farms f ON f.id = p.farm_id
    LEFT JOIN crop_families cf ON cf.id = c.family_id
    WHERE c.is_active = 1 AND f.organization_id = @org AND ${FARM_VISIBLE}
    ORDER BY c.parcel_id, c.sowing IS NULL, c.sowing DESC, c.id DESC`).all(scopeParams(scope)) as (CurrentCrop & { parcel_id: number })[];
  const out = new Map<number, CurrentCrop>();
  for (const { parcel_id, ...crop } of rows) if (!out.has(parcel_id)) out.set(parcel_id, crop);
  return out;
}
