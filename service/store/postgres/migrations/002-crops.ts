import type pg from 'pg';

// An organization's crop family names are unique case-insensitively (name_norm). SQLite checks before it inserts,
// which its single writer makes safe; several service processes on one database need the database to say it, so
// that two creates of the same new name at once leave one family (crop-families.ts). Shared families
// (organization_id NULL) are seeded by migrations only and checked by the insert itself.
export async function up(client: pg.ClientBase): Promise<void> {
  await client.query('CREATE UNIQUE INDEX crop_families_org_name ON crop_families (organization_id, name_norm) WHERE organization_id IS NOT NULL');
}
