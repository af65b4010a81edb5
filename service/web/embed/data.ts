// What the embedded map receives: the account's parcels as slim GeoJSON (only what the map shows) and its plants.
// Filtering goes through the API's own listParcels/metadataFilters, so `metadata[k]=v` means the same in both places.
import type { Store } from '../../store/store.ts';
import type { AccountRow } from '../../store/accounts.ts';
import { metadataFilters, pageRows } from '../../store/parcel-list.ts';
import type { ParcelRow } from '../../store/parcel-json.ts';
import { listPlantsJson } from '../../store/plants.ts';
import type { CurrentCrop } from '../../store/crops.ts';
import { REF_KEY } from '../../../core/parcels/client-ref.ts';
import type { Scope } from '../../store/scope.ts';

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

/** A parcel's current crop (Store.crops.currentByParcel) as the map's JSON. */
const cropJson = (c: CurrentCrop): string => JSON.stringify({ name: c.name, variety: c.variety, campaign: c.campaign, sowing: c.sowing, family: c.family });

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
async function farmNames(store: Store, scope: Scope, rows: readonly ParcelRow[]): Promise<string> {
  const names: Record<number, string> = {};
  for (const [id, name] of await store.farms.names(scope.organizationId, [...new Set(rows.map((r) => r.farm_id))])) names[id] = name;
  return JSON.stringify(names);
}

/**
 * GET /embed/data/parcels: a FeatureCollection of the account's parcels matching every `metadata[k]=v` of the
 * query (AND across keys, an unknown key matches nothing), with `count` (all matches), `truncated`, `farms`
 * (id → name of the farms of the parcels sent; each parcel's `farm` is such an id) and `families`: the names of the
 * crop families the organization has (the shared ones and its own, as GET /api/crop-families/ lists them), which the
 * map colours among with the app's rule (core/crops/family-colours.ts cropColours) so that a family has one colour in
 * both, whatever the filter.
 * Assembled as a string like the API's listings: geometry and metadata go out as stored.
 */
export async function embedParcelsJson(store: Store, account: AccountRow, query: Record<string, unknown>): Promise<string> {
  const scope = embedScope(account);
  const metadata = metadataFilters(query);
  const families = JSON.stringify((await store.cropFamilies.list(scope.organizationId)).map((f) => f.name));
  if (metadata.has(SYNC_REF_KEY)) return `{"type":"FeatureCollection","count":0,"truncated":false,"farms":{},"families":${families},"features":[]}`;
  const page = await store.parcels.list(scope, { metadata, limit: MAX_EMBED_PARCELS });
  const rows = await pageRows(page);
  const crops = rows.length ? await store.crops.currentByParcel(scope) : new Map<number, CurrentCrop>();
  const features = rows.map((r) => {
    const crop = crops.get(r.id);
    return featureJson(r, crop && cropJson(crop));
  }).join(',');
  return `{"type":"FeatureCollection","count":${page.count},"truncated":${page.count > rows.length},"farms":${await farmNames(store, scope, rows)},"families":${families},"features":[${features}]}`;
}

/** GET /embed/data/plants: the account's plants, the features GET /api/plants/ gives the account (all, without next). */
export function embedPlantsJson(store: Store, account: AccountRow): Promise<string> {
  return listPlantsJson(store, embedScope(account), { limit: MAX_EMBED_PLANTS });
}
