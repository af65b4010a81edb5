// What the embedded map receives: the account's parcels as slim GeoJSON (only what the map shows) and its plants.
// Filtering goes through the API's own listParcels/metadataFilters, so `metadata[k]=v` means the same in both places.
import type { Db } from '../../store/sqlite/db.ts';
import type { AccountRow } from '../../store/sqlite/accounts.ts';
import { listParcels, metadataFilters } from '../../store/sqlite/parcel-list.ts';
import type { ParcelRow } from '../../store/parcel-json.ts';
import { listPlantsJson } from '../../store/sqlite/plants.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { REF_KEY } from '../../../core/parcels/client-ref.ts';
import { FARM_VISIBLE, scopeParams, type Scope } from '../../store/scope.ts';

/**
 * The sync engine's bookkeeping key in parcel metadata. It is an internal identifier of someone's desktop
 * mirror, not the grower's data: the map neither shows it nor filters on it (a filter on it behaves like any unknown key).
 */
export const SYNC_REF_KEY = REF_KEY;

/** Far above the 5,000 parcels the map is measured with; a larger account is drawn in part and told so. */
export const MAX_EMBED_PARCELS = 50_000;
const MAX_EMBED_PLANTS = 200_000;

/** The embed acts as the account itself (like its bearer token): only that account's active farms are visible. */
export const embedScope = (a: AccountRow): Scope => ({ organizationId: a.organization_id, accountId: a.id, via: 'bearer' });

interface CurrentCropRow {
  parcel_id: number;
  name: string | null;
  variety: string | null;
  campaign: string | null;
  sowing: string | null;
  family: string | null;
}

/**
 * The current crop of every visible parcel of the account: among its active entries (is_active), the newest
 * sowing, undated last, then the newest entry — the same order as GET /api/parcels/{id}/crops/. One query for
 * the whole account instead of one per parcel (5,000 parcels would mean 5,000 statements).
 */
function currentCrops(db: Db, scope: Scope): Map<number, string> {
  const rows = cachedStatement(db, `SELECT c.parcel_id, c.name, c.variety, c.campaign, c.sowing, cf.name AS family
    FROM crops c JOIN parcels p ON p.id = c.parcel_id JOIN farms f ON f.id = p.farm_id
    LEFT JOIN crop_families cf ON cf.id = c.family_id
    WHERE c.is_active = 1 AND f.organization_id = @org AND ${FARM_VISIBLE}
    ORDER BY c.parcel_id, c.sowing IS NULL, c.sowing DESC, c.id DESC`).all(scopeParams(scope)) as CurrentCropRow[];
  const out = new Map<number, string>();
  for (const r of rows) {
    if (out.has(r.parcel_id)) continue;
    out.set(r.parcel_id, JSON.stringify({ name: r.name, variety: r.variety, campaign: r.campaign, sowing: r.sowing, family: r.family }));
  }
  return out;
}

/** Stored metadata is canonical JSON.stringify output, so the key can only appear literally; most rows skip the parse. */
function publicMetadata(json: string): string {
  if (!json.includes(`"${SYNC_REF_KEY}"`)) return json;
  const m = JSON.parse(json) as Record<string, unknown>;
  delete m[SYNC_REF_KEY];
  return JSON.stringify(m);
}

function featureJson(r: ParcelRow, crop: string | undefined): string {
  return `{"type":"Feature","id":${r.id},"geometry":${r.geometry},"properties":{"name":${JSON.stringify(r.name)},"farm":${r.farm_id},"hectares":${r.hectares},"metadata":${publicMetadata(r.metadata)},"crop":${crop ?? 'null'}}}`;
}

/** Names of the farms the rows belong to, by id: the map names the areas it offers to jump to after them. */
function farmNames(db: Db, rows: readonly ParcelRow[]): string {
  const ids = [...new Set(rows.map((r) => r.farm_id))];
  const names: Record<number, string> = {};
  // In slices: SQLite limits the number of bound parameters of one statement.
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    const found = db.prepare(`SELECT id, name FROM farms WHERE id IN (${slice.map(() => '?').join(',')})`).all(...slice) as { id: number; name: string }[];
    for (const f of found) names[f.id] = f.name;
  }
  return JSON.stringify(names);
}

/**
 * GET /embed/data/parcels: a FeatureCollection of the account's parcels matching every `metadata[k]=v` of the
 * query (AND across keys, an unknown key matches nothing), with `count` (all matches), `truncated`, and `farms`
 * (id → name of the farms of the parcels sent; each parcel's `farm` is such an id).
 * Assembled as a string like the API's listings: geometry and metadata go out as stored.
 */
export function embedParcelsJson(db: Db, account: AccountRow, query: Record<string, unknown>): string {
  const scope = embedScope(account);
  const metadata = metadataFilters(query);
  if (metadata.has(SYNC_REF_KEY)) return '{"type":"FeatureCollection","count":0,"truncated":false,"farms":{},"features":[]}';
  const { rows, count } = listParcels(db, scope, { metadata, limit: MAX_EMBED_PARCELS });
  const crops = rows.length ? currentCrops(db, scope) : new Map<number, string>();
  const features = rows.map((r) => featureJson(r, crops.get(r.id))).join(',');
  return `{"type":"FeatureCollection","count":${count},"truncated":${count > rows.length},"farms":${farmNames(db, rows)},"features":[${features}]}`;
}

/** GET /embed/data/plants: the account's plants, the features GET /api/plants/ gives the account (all, without next). */
export function embedPlantsJson(db: Db, account: AccountRow): string {
  return listPlantsJson(db, embedScope(account), { limit: MAX_EMBED_PLANTS });
}
