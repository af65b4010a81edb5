// Crop families on PostgreSQL: the shared ones (organization_id NULL, seeded by migration 001) and each
// organization's own, as SQLite's sqlite/crops.ts keeps them.
//
// A name is unique, case-insensitively (name_norm: JavaScript's toLowerCase, computed here as in SQLite), across the
// shared families and the organization's. SQLite's single writer made check-then-insert enough; two service
// processes need more: migration 002-crops adds a unique index on (organization_id, name_norm) for the
// organization's families, and the insert skips a conflicting row instead of failing, so that the caller decides.
// The shared families are fixed by migrations, so checking them inside the same statement cannot race.
import type pg from 'pg';
import { now, uuid } from '../clock.ts';
import { ApiError } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import type { CropFamily } from '../../../core/schemas/crops.ts';
import type { CropFamilyStore } from '../store.ts';
import type { Queryable } from './crops-sql.ts';

export const familyExists = (name: string): ApiError => new ApiError(ErrorCode.conflict, `A crop family named '${name}' already exists`);

/**
 * A new family of the organization, or null when one of that name (any case) exists, shared or the organization's,
 * including one a concurrent transaction has just committed (the unique index makes this statement wait for it).
 * 400 for a blank name, as SQLite's createFamily.
 */
export async function insertFamily(q: Queryable, organizationId: string, name: string, observation = ''): Promise<CropFamily | null> {
  const trimmed = name.trim();
  if (!trimmed) throw new ApiError(ErrorCode.validationFailed, 'A crop family needs a name');
  const norm = trimmed.toLowerCase();
  // Checked first, as SQLite does, so an existing name costs no key or timestamp; the insert checks again itself.
  const seen = await q.query('SELECT 1 FROM crop_families WHERE name_norm = $1 AND (organization_id IS NULL OR organization_id = $2)', [norm, organizationId]);
  if (seen.rowCount) return null;
  const key = uuid();
  const r = await q.query<{ id: number }>(`INSERT INTO crop_families (key, organization_id, name, name_norm, observation, created)
    SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::timestamptz
    WHERE NOT EXISTS (SELECT 1 FROM crop_families WHERE name_norm = $4::text AND (organization_id IS NULL OR organization_id = $2::text))
    ON CONFLICT (organization_id, name_norm) WHERE organization_id IS NOT NULL DO NOTHING
    RETURNING id`, [key, organizationId, trimmed, norm, observation, now()]);
  return r.rows[0] ? { id: r.rows[0].id, key, name: trimmed, observation } : null;
}

/** The family a crop names by `name` (already trimmed): a shared one before the organization's, as SQLite picks. */
export async function familyByName(q: Queryable, organizationId: string, name: string): Promise<number | undefined> {
  const r = await q.query<{ id: number }>(`SELECT id FROM crop_families WHERE name_norm = $1 AND (organization_id IS NULL OR organization_id = $2)
    ORDER BY organization_id NULLS FIRST LIMIT 1`, [name.toLowerCase(), organizationId]);
  return r.rows[0]?.id;
}

export function pgCropFamilies(pool: pg.Pool): CropFamilyStore {
  return {
    // name_norm in bytewise order (COLLATE "C"), as SQLite's BINARY collation compares it, whatever the database's locale.
    list: async (organizationId) => (await pool.query<CropFamily>(`SELECT id, key, name, observation FROM crop_families
      WHERE organization_id IS NULL OR organization_id = $1 ORDER BY name_norm COLLATE "C", id`, [organizationId])).rows,
    // One statement: the check and the insert are atomic. Of two processes creating the same name at once, one
    // inserts and the other gets the 409 it would have had one moment later under SQLite.
    create: async (organizationId, name, observation) => {
      const family = await insertFamily(pool, organizationId, name, observation);
      if (!family) throw familyExists(name.trim());
      return family;
    },
  };
}
