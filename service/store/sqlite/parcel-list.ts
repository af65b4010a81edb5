// GET /api/parcels/ in SQLite: the filters (../parcel-list.ts) as one query, with the R*Tree for bbox.
import type { Db } from './db.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import type { Scope } from '../scope.ts';
import type { ParcelFilter } from '../parcel-list.ts';
import type { ParcelRow } from '../parcel-json.ts';
import { FARM_VISIBLE, scopeParams } from './scope-sql.ts';
import { PARCEL_COLUMNS, visibleFarm } from './parcels.ts';
// The matching rule itself (values compared by their canonical text), shared with the desktop mirror's map.
import { metadataFilterSql } from '../../../core/parcels/metadata-filter.ts';

export function listParcels(db: Db, scope: Scope, filter: ParcelFilter): { rows: ParcelRow[]; count: number; hasMore: boolean } {
  const where: string[] = [`f.organization_id = @org`, FARM_VISIBLE];
  const named: Record<string, unknown> = { ...scopeParams(scope) };
  const positional: unknown[] = [];
  if (filter.farm !== undefined) {
    visibleFarm(db, scope, filter.farm);
    where.push('p.farm_id = @farm');
    named.farm = filter.farm;
  }
  if (filter.search) {
    where.push("p.name LIKE @search ESCAPE '\\'");
    named.search = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  if (filter.bbox) {
    where.push('p.id IN (SELECT id FROM parcels_rtree WHERE maxx >= @bx0 AND minx <= @bx1 AND maxy >= @by0 AND miny <= @by1)');
    Object.assign(named, { bx0: filter.bbox[0], by0: filter.bbox[1], bx1: filter.bbox[2], by1: filter.bbox[3] });
  }
  const meta = metadataFilterSql('p.metadata', filter.metadata ?? new Map<string, string[]>());
  const metaSql = meta.sql ? ` AND ${meta.sql}` : '';
  positional.push(...meta.params);
  // better-sqlite3 cannot mix named and positional parameters: inline the named ones as positional.
  const base = `FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE ${where.join(' AND ')}`;
  const toPositional = (sql: string, extra: Record<string, unknown>) => {
    const all = { ...named, ...extra };
    const args: unknown[] = [];
    const text = sql.replace(/@(\w+)/g, (_, name: string) => {
      args.push(all[name]);
      return '?';
    });
    return { text, args };
  };
  const countQ = toPositional(`SELECT COUNT(*) AS n ${base}`, {});
  const count = (db.prepare(countQ.text + metaSql).get(...countQ.args, ...positional) as { n: number }).n;
  const pageQ = toPositional(`SELECT ${PARCEL_COLUMNS} ${base} AND p.id > @after`, { after: filter.after ?? 0 });
  const rows = cachedStatement(db, `${pageQ.text}${metaSql} ORDER BY p.id LIMIT ?`).all(...pageQ.args, ...positional, filter.limit + 1) as ParcelRow[];
  const hasMore = rows.length > filter.limit;
  if (hasMore) rows.pop();
  return { rows, count, hasMore };
}
