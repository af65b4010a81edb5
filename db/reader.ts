import type { Db } from './open.ts';
import { filtersOnRef, metadataFilterSql, type MetadataFilter } from '../core/parcels/metadata-filter.ts';
import type { AccountRow, ConflictRow, CropRow, Entity, FarmRow, OutboxRow, ParcelRow } from './types.ts';
import type { StatusCounts } from '../core/api-schemas.ts';
import { accountCampaigns, colourNames, cropFamilies, farmCrops, findFamily, type FamilyRow } from './rotations.ts';
import { parcelPlants, plantsInBox, type PlantHit } from './plants.ts';
import { syncItems, syncPreview, type SyncItem, type SyncPreview } from './sync-preview.ts';
import { unsyncedWork, type UnsyncedWork } from './accounts.ts';
import { openConflictById } from './conflicts.ts';
import { PARCEL_SELECT } from './rows.ts';

export interface ParcelHit { local_id: string; farm_local_id: string; server_id: number | null; name: string; hectares: number; geometry: string; metadata: string; point: string | null }

export type ParcelSyncState = 'synced' | 'pending' | 'sending' | 'uncertain' | 'rejected' | 'conflict' | 'blocked';
const ENTITIES = new Set<Entity>(['farm', 'parcel', 'crop']);
/**
 * The most pressing open state of one item, as a subquery correlated on `idExpr` giving `state` (as the map names
 * it) and `reason`, or no row when the item is synced: a conflict, then a rejection, a blocked account, an unknown
 * outcome, a request out, a queued change; among equals the oldest op, ops before conflict rows. A conflict's
 * reason is its fields joined ("name, metadata"), or its own text when that is not a JSON array. One definition for
 * syncStates and the map's JSON (FEATURE_JSON).
 */
function openState(entity: Entity, idExpr: string): string {
  if (!ENTITIES.has(entity)) throw new Error(`unknown entity ${entity}`);
  return `SELECT state, CASE WHEN state = 'conflict' AND json_valid(reason) AND json_type(reason) = 'array'
        THEN coalesce((SELECT group_concat(value, ', ') FROM json_each(reason)), '') ELSE reason END AS reason FROM (
      SELECT CASE o.state WHEN 'in_flight' THEN 'sending' WHEN 'uncertain' THEN 'uncertain' WHEN 'rejected' THEN 'rejected'
          WHEN 'conflict' THEN 'conflict' WHEN 'blocked' THEN 'blocked' ELSE 'pending' END AS state,
        CASE o.state WHEN 'conflict' THEN 6 WHEN 'rejected' THEN 5 WHEN 'blocked' THEN 4 WHEN 'uncertain' THEN 3 WHEN 'in_flight' THEN 2 ELSE 1 END AS rank,
        o.last_error AS reason, 0 AS src, o.id AS ord
      FROM outbox o WHERE o.entity = '${entity}' AND o.local_id = ${idExpr} AND o.state != 'committed'
      UNION ALL SELECT 'conflict', 6, c.fields, 1, c.id FROM conflicts c WHERE c.entity = '${entity}' AND c.local_id = ${idExpr} AND c.resolved IS NULL
      ORDER BY rank DESC, src, ord LIMIT 1)`;
}

/**
 * A parcel (`p`) as the map's GeoJSON Feature, written by SQLite around the geometry, point and metadata JSON it
 * stores: the shape of backend/views.ts parcelFeatures, its sync state included. One expression for the viewport and
 * search answers.
 */
const featureJson = (extra = '') => `'{"type":"Feature","id":' || json_quote(p.local_id) || ',"geometry":' || p.geometry ||
  ',"properties":{"farm":' || json_quote(p.farm_local_id) || ',"name":' || json_quote(p.name) || ',"hectares":' || json_quote(p.hectares) ||
  ',"serverId":' || json_quote(p.server_id) || ',"state":' ||
  coalesce((SELECT json_quote(state) || ',"reason":' || json_quote(reason) FROM (${openState('parcel', 'p.local_id')})), '"synced","reason":null') ||
  ',"point":' || coalesce(p.point, 'null') || ${extra}',"metadata":' || p.metadata || '}}'`;
const FEATURE_JSON = featureJson();
/**
 * The same with the parcel's active crop (`crop`: its name and family, the newest sowing first), for a map coloured
 * by crop or family; a statement of its own, so the plain map pays nothing for it (index crops_parcel).
 */
const FEATURE_WITH_CROP_JSON = featureJson(`',"crop":' || coalesce((SELECT json_object('name', c.name, 'family', coalesce(c.family_name, f.name))
    FROM crops c LEFT JOIN crop_families f ON f.account_id = c.account_id AND f.server_id = c.family_id
    WHERE c.parcel_local_id = p.local_id AND c.deleted = 0 AND c.is_active = 1
    ORDER BY c.sowing IS NULL, c.sowing DESC, c.created DESC LIMIT 1), 'null') || `);
/**
 * The same with the parcel's crop of one campaign (the statement's first parameter), past or planned: the map
 * coloured by a chosen campaign (the rotation plan, issue 33). The newest sown (else created) when it has several.
 */
const FEATURE_WITH_CAMPAIGN_CROP_JSON = featureJson(`',"crop":' || coalesce((SELECT json_object('name', c.name, 'family', coalesce(c.family_name, f.name))
    FROM crops c LEFT JOIN crop_families f ON f.account_id = c.account_id AND f.server_id = c.family_id
    WHERE c.parcel_local_id = p.local_id AND c.deleted = 0 AND c.campaign = ?
    ORDER BY c.sowing IS NULL, c.sowing DESC, c.created DESC LIMIT 1), 'null') || `);
/** The feature JSON a viewport asks for: plain, with the active crop, or with the crop of a campaign (its parameter). */
const featureSql = (crops: boolean | { campaign: string }): { sql: string; params: string[] } =>
  typeof crops === 'object' ? { sql: FEATURE_WITH_CAMPAIGN_CROP_JSON, params: [crops.campaign] } : { sql: crops ? FEATURE_WITH_CROP_JSON : FEATURE_JSON, params: [] };

/** Read-only access to the mirror: what the UI and the CLI show. Never writes. */
export class MirrorReader {
  constructor(private readonly db: Db) {}

  accounts(): AccountRow[] {
    return this.db.prepare('SELECT * FROM accounts ORDER BY created, id').all() as AccountRow[];
  }
  account(id: string): AccountRow | undefined {
    return this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
  }

  farms(accountId?: string): FarmRow[] {
    return (accountId
      ? this.db.prepare('SELECT * FROM farms WHERE account_id = ? AND deleted = 0 ORDER BY name, local_id').all(accountId)
      : this.db.prepare('SELECT * FROM farms WHERE deleted = 0 ORDER BY name, local_id').all()) as FarmRow[];
  }
  farm(localId: string): FarmRow | undefined {
    return this.db.prepare('SELECT * FROM farms WHERE local_id = ?').get(localId) as FarmRow | undefined;
  }
  /** A farm's live parcels: how many, and their hectares. */
  farmTotals(localId: string): { parcels: number; hectares: number } {
    // farm_totals (migration 014), kept by triggers: no parcel read.
    return (this.db.prepare('SELECT parcels, hectares FROM farm_totals WHERE farm_local_id = ?').get(localId) as { parcels: number; hectares: number } | undefined) ?? { parcels: 0, hectares: 0 };
  }
  /** How many live parcels an account has. */
  accountParcelCount(accountId: string): number {
    return this.db.prepare('SELECT count(*) FROM parcels WHERE account_id = ? AND deleted = 0').pluck().get(accountId) as number;
  }
  /** Every live farm's totals in one statement (as farmTotals, by farm local id; a farm without parcels is absent). */
  accountFarmTotals(accountId: string): Map<string, { parcels: number; hectares: number }> {
    // From farm_totals (migration 014): a row a farm. Counted on parcels_farm (migration 011) it read every parcel's
    // index entry, 120-250 ms with a million parcels, at every start and after every sync.
    const rows = this.db.prepare(`SELECT t.farm_local_id AS id, t.parcels, t.hectares FROM farms f JOIN farm_totals t ON t.farm_local_id = f.local_id
        WHERE f.account_id = ? AND f.deleted = 0 AND t.parcels > 0`)
      .all(accountId) as { id: string; parcels: number; hectares: number }[];
    return new Map(rows.map((r) => [r.id, { parcels: r.parcels, hectares: r.hectares }]));
  }
  /** The box around a farm's live parcels as [minLon, minLat, maxLon, maxLat], null when it has none (index parcels_farm). */
  farmExtent(localId: string): [number, number, number, number] | null {
    const r = this.db.prepare('SELECT MIN(minx) AS w, MIN(miny) AS s, MAX(maxx) AS e, MAX(maxy) AS n FROM parcels WHERE farm_local_id = ? AND deleted = 0')
      .get(localId) as { w: number | null; s: number; e: number; n: number };
    return r.w === null ? null : [r.w, r.s, r.e, r.n];
  }
  /**
   * A page of a farm's live parcels ordered by name (case aside, then id), each with its hectares and sync state as
   * the map names it, and how many the farm has: the list beside the map reads a farm of thousands a page at a time.
   */
  farmParcelPage(farmLocalId: string, offset: number, limit: number): { total: number; parcels: { id: string; name: string; hectares: number; state: ParcelSyncState }[] } {
    const total = this.db.prepare('SELECT count(*) FROM parcels WHERE farm_local_id = ? AND deleted = 0').pluck().get(farmLocalId) as number;
    // The page's ids first, the states then for those alone: SQLite computes a sorted query's columns for every row
    // before it sorts, and the state of 20,000 parcels made a page deep in the list take 200 ms.
    const parcels = this.db.prepare(`SELECT p.local_id AS id, p.name, p.hectares, coalesce((SELECT state FROM (${openState('parcel', 'p.local_id')})), 'synced') AS state
        FROM (SELECT local_id FROM parcels WHERE farm_local_id = ? AND deleted = 0 ORDER BY name COLLATE NOCASE, local_id LIMIT ? OFFSET ?) page
        JOIN parcels p ON p.local_id = page.local_id ORDER BY p.name COLLATE NOCASE, p.local_id`)
      .all(farmLocalId, limit, offset) as { id: string; name: string; hectares: number; state: ParcelSyncState }[];
    return { total, parcels };
  }
  /** Where a live parcel stands in its farm's list (farmParcelPage's order), from 0. */
  farmParcelIndex(farmLocalId: string, parcelLocalId: string, name: string): number {
    return this.db.prepare(`SELECT count(*) FROM parcels WHERE farm_local_id = ? AND deleted = 0
        AND (name < ? COLLATE NOCASE OR (name = ? COLLATE NOCASE AND local_id < ?))`).pluck().get(farmLocalId, name, name, parcelLocalId) as number;
  }
  farmByName(accountId: string, name: string): FarmRow | undefined {
    return this.db.prepare('SELECT * FROM farms WHERE account_id = ? AND name = ? AND deleted = 0 ORDER BY created LIMIT 1').get(accountId, name) as FarmRow | undefined;
  }

  parcels(farmLocalId: string): ParcelRow[] {
    return this.db.prepare(`SELECT ${PARCEL_SELECT} FROM parcels WHERE farm_local_id = ? AND deleted = 0 ORDER BY created, rowid`).all(farmLocalId) as ParcelRow[];
  }
  allParcels(accountId?: string): ParcelRow[] {
    return (accountId
      ? this.db.prepare(`SELECT ${PARCEL_SELECT} FROM parcels WHERE account_id = ? AND deleted = 0 ORDER BY rowid`).all(accountId)
      : this.db.prepare(`SELECT ${PARCEL_SELECT} FROM parcels WHERE deleted = 0 ORDER BY rowid`).all()) as ParcelRow[];
  }
  /**
   * The account's parcels (not deleted) with a change the service does not have — an outbox op not committed, or an
   * open conflict — by rowid; and how many of its unsent changes are no such parcel's (a farm's, a crop's, a deleted
   * parcel's), which an export of parcels cannot hold.
   */
  unsentParcels(accountId: string): { ids: string[]; otherChanges: number } {
    const open = `(EXISTS (SELECT 1 FROM outbox o WHERE o.entity = 'parcel' AND o.local_id = p.local_id AND o.state != 'committed')
      OR EXISTS (SELECT 1 FROM conflicts c WHERE c.entity = 'parcel' AND c.local_id = p.local_id AND c.resolved IS NULL))`;
    const ids = this.db.prepare(`SELECT p.local_id FROM parcels p WHERE p.account_id = ? AND p.deleted = 0 AND ${open} ORDER BY p.rowid`).pluck().all(accountId) as string[];
    const live = "entity = 'parcel' AND local_id IN (SELECT local_id FROM parcels WHERE account_id = ? AND deleted = 0)";
    const otherChanges = (this.db.prepare(`SELECT count(*) FROM outbox WHERE account_id = ? AND state != 'committed' AND NOT (${live})`).pluck().get(accountId, accountId) as number)
      + (this.db.prepare(`SELECT count(*) FROM conflicts WHERE account_id = ? AND resolved IS NULL AND NOT (${live})`).pluck().get(accountId, accountId) as number);
    return { ids, otherChanges };
  }

  parcel(localId: string): ParcelRow | undefined {
    return this.db.prepare(`SELECT ${PARCEL_SELECT} FROM parcels WHERE local_id = ?`).get(localId) as ParcelRow | undefined;
  }

  /** Parcels whose bounding box meets the viewport (R*Tree), for the map. */
  viewport(bbox: [number, number, number, number], limit = 5000, accountId?: string): ParcelHit[] {
    const acc = accountId ?? null;
    return this.db.prepare(`SELECT p.local_id, p.farm_local_id, p.server_id, p.name, p.hectares, p.geometry, p.metadata, p.point FROM parcels_rtree r
      JOIN parcels p ON p.rowid = r.id WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? AND p.deleted = 0 AND (? IS NULL OR p.account_id = ?) LIMIT ?`)
      .all(bbox[0], bbox[2], bbox[1], bbox[3], acc, acc, limit) as ParcelHit[];
  }

  /**
   * How many of the account's live parcels meet the box, counted up to `upTo`: in the R*Tree alone (its account and
   * deleted flag, migration 010). Through the parcels' rows, a view of a million-parcel mirror read 5,000 of them,
   * scattered over 2.3 GB, on every move.
   */
  viewportCount(bbox: [number, number, number, number], upTo: number, accountId: string): number {
    return this.db.prepare(`SELECT count(*) FROM (SELECT 1 FROM parcels_rtree
        WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ? AND account_id = ? AND deleted = 0 LIMIT ?)`)
      .pluck().get(bbox[0], bbox[2], bbox[1], bbox[3], accountId, upTo) as number;
  }

  /**
   * The account's live parcels whose box lies within `margin` (degrees) of `box` on every side, with their farm's
   * name: the candidates for core/geo/same-shape.ts (db/import/duplicates.ts). Only rows up to `maxRowid`.
   */
  sameBoxParcels(accountId: string, box: readonly [number, number, number, number], margin: { lon: number; lat: number }, maxRowid: number): { name: string; farm: string; geometry: string }[] {
    // The R*Tree keeps its boxes in 32-bit floats, rounded outwards: a few millionths of a degree more.
    const dx = margin.lon + 1e-5;
    const dy = margin.lat + 1e-5;
    return this.db.prepare(`SELECT p.name, f.name AS farm, p.geometry FROM parcels_rtree r JOIN parcels p ON p.rowid = r.id JOIN farms f ON f.local_id = p.farm_local_id
      WHERE r.minx BETWEEN ? AND ? AND r.maxx BETWEEN ? AND ? AND r.miny BETWEEN ? AND ? AND r.maxy BETWEEN ? AND ?
        AND p.deleted = 0 AND p.account_id = ? AND p.rowid <= ? LIMIT 50`)
      .all(box[0] - dx, box[0] + dx, box[2] - dx, box[2] + dx, box[1] - dy, box[1] + dy, box[3] - dy, box[3] + dy, accountId, maxRowid) as { name: string; farm: string; geometry: string }[];
  }

  /** The largest rowid of the parcels (0 without any): what sameBoxParcels sees of an import's own rows is none. */
  lastParcelRowid(): number {
    return (this.db.prepare('SELECT coalesce(max(rowid), 0) FROM parcels').pluck().get() as number);
  }

  /**
   * Where each parcel stands with the service, for the map: its open outbox ops and conflicts, the most pressing
   * first (a conflict, then a rejection, a blocked account, an unknown outcome, a request out, a queued change).
   * A parcel with none is synced.
   */
  parcelStates(localIds: readonly string[]): Map<string, { state: ParcelSyncState; reason: string | null }> {
    return this.syncStates('parcel', localIds);
  }

  /** Where each farm, parcel or crop stands with the service, as parcelStates says it. */
  syncStates(entity: Entity, localIds: readonly string[]): Map<string, { state: ParcelSyncState; reason: string | null }> {
    const out = new Map<string, { state: ParcelSyncState; reason: string | null }>();
    if (!localIds.length) return out;
    const rows = this.db.prepare(`SELECT j.value AS id, (SELECT json_array(state, reason) FROM (${openState(entity, 'j.value')})) AS s FROM json_each(?) j`)
      .all(JSON.stringify(localIds)) as { id: string; s: string | null }[];
    for (const r of rows) {
      const [state, reason] = r.s === null ? ['synced', null] as const : JSON.parse(r.s) as [ParcelSyncState, string | null];
      out.set(r.id, { state, reason });
    }
    return out;
  }

  /**
   * The map's features in a viewport, each as its JSON text, written by SQLite around the geometry, point and
   * metadata JSON it stores (the shape of backend/views.ts parcelFeatures, state included): a viewport's answer is
   * mostly geometry, and building it row by row in JavaScript took longer than the R*Tree query. Up to limit + 1
   * features: more than `limit` says the answer is cut.
   */
  viewportJson(bbox: [number, number, number, number], limit: number, accountId: string, metadata?: MetadataFilter, crops: boolean | { campaign: string } = false): string[] {
    if (metadata && Object.keys(metadata).length) return this.filteredViewportJson(bbox, limit, accountId, metadata, crops);
    const f = featureSql(crops);
    // CROSS JOIN keeps the R*Tree first: given `p.account_id = ?` alone, the planner walks the account's whole index.
    return this.db.prepare(`SELECT ${f.sql}
        FROM parcels_rtree r CROSS JOIN parcels p ON p.rowid = r.id
        WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? AND p.deleted = 0 AND p.account_id = ? LIMIT ?`)
      .pluck().all(...f.params, bbox[0], bbox[2], bbox[1], bbox[3], accountId, limit + 1) as string[];
  }

  /**
   * viewportJson with the embedded map's metadata filter (core/parcels/metadata-filter.ts, the service's own
   * condition): only parcels it matches, up to limit + 1. A statement of its own, so the unfiltered map's stays as it was.
   */
  private filteredViewportJson(bbox: [number, number, number, number], limit: number, accountId: string, metadata: MetadataFilter, crops: boolean | { campaign: string }): string[] {
    if (filtersOnRef(Object.keys(metadata))) return [];
    const meta = metadataFilterSql('p.metadata', metadata);
    const f = featureSql(crops);
    return this.db.prepare(`SELECT ${f.sql}
        FROM parcels_rtree r CROSS JOIN parcels p ON p.rowid = r.id
        WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? AND p.deleted = 0 AND p.account_id = ? AND ${meta.sql} LIMIT ?`)
      .pluck().all(...f.params, bbox[0], bbox[2], bbox[1], bbox[3], accountId, ...meta.params, limit + 1) as string[];
  }

  /**
   * Full-text search over parcel names and metadata values, as you type: every word but the last is a whole word,
   * the last one a prefix unless a space or punctuation follows it ("Haza de la Ve" finds "Haza de la Vega 12"). Making every word a prefix cost up to
   * 80 ms per query over a million parcels when a whole name was typed: short words such as "de" or "4" expand to
   * thousands of terms. Parcels whose name matches come first, then those matching through their metadata.
   * Ranking every match (bm25) would cost tens of milliseconds when a short prefix matches most of a million
   * parcels; this stays in the index.
   */
  search(text: string, limit = 50, accountId?: string): ParcelHit[] {
    const hits = this.searchRowids(text, limit, accountId);
    if (!hits.length) return [];
    const rows = this.db.prepare(`SELECT p.rowid AS rid, p.local_id, p.farm_local_id, p.server_id, p.name, p.hectares, p.geometry, p.metadata, p.point
      FROM parcels p WHERE p.rowid IN (SELECT value FROM json_each(?)) AND p.deleted = 0`).all(JSON.stringify(hits)) as (ParcelHit & { rid: number })[];
    const order = new Map(hits.map((id, i) => [id, i]));
    return rows.sort((a, b) => order.get(a.rid)! - order.get(b.rid)!).slice(0, limit).map(({ rid: _rid, ...hit }) => hit);
  }

  /** The same parcels as search, in its order, each as the map's Feature JSON (as viewportJson). */
  searchJson(text: string, limit = 50, accountId?: string): string[] {
    const hits = this.searchRowids(text, limit, accountId);
    if (!hits.length) return [];
    return this.db.prepare(`SELECT ${FEATURE_JSON} FROM json_each(?) j JOIN parcels p ON p.rowid = j.value WHERE p.deleted = 0 ORDER BY j.key LIMIT ?`)
      .pluck().all(JSON.stringify(hits), limit) as string[];
  }

  /** Candidate rowids of a search, best first: name matches, then metadata matches; deleted parcels not yet left out. */
  private searchRowids(text: string, limit: number, accountId?: string): number[] {
    const normalized = text.normalize('NFKC');
    const words = normalized.match(/[\p{L}\p{N}_-]+/gu) ?? [];
    if (!words.length) return [];
    // A separator after the last word ("Vega ", "GlobalG.A.P.") says it is complete too.
    const typing = /[\p{L}\p{N}_-]$/u.test(normalized);
    const query = words.map((w, i) => `"${w.replace(/"/g, '')}"${typing && i === words.length - 1 ? '*' : ''}`).join(' ');
    const acc = accountId ?? null;
    // Within one account: a consultant's search stays in the customer open (each match joined to its parcel).
    const ids = (match: string, n: number) => (acc === null
      ? this.db.prepare('SELECT rowid FROM parcels_fts WHERE parcels_fts MATCH ? LIMIT ?').pluck().all(match, n)
      : this.db.prepare('SELECT f.rowid FROM parcels_fts f JOIN parcels p ON p.rowid = f.rowid WHERE parcels_fts MATCH ? AND p.account_id = ? LIMIT ?').pluck().all(match, acc, n)) as number[];
    const hits: number[] = ids(`name : (${query})`, limit * 2);
    if (hits.length < limit * 2) {
      const seen = new Set(hits);
      for (const id of ids(query, limit * 2)) if (!seen.has(id)) hits.push(id);
    }
    return hits;
  }

  /** A parcel's rotation history, newest sowing first. */
  crops(parcelLocalId: string): CropRow[] {
    return this.db.prepare('SELECT * FROM crops WHERE parcel_local_id = ? AND deleted = 0 ORDER BY sowing IS NULL, sowing DESC, created DESC').all(parcelLocalId) as CropRow[];
  }
  crop(localId: string): CropRow | undefined {
    return this.db.prepare('SELECT * FROM crops WHERE local_id = ?').get(localId) as CropRow | undefined;
  }

  plants(accountId: string, parcelServerId?: number): { server_id: number; point: string; shape: string | null; info: string | null; area: string }[] {
    return (parcelServerId === undefined
      ? this.db.prepare('SELECT server_id, point, shape, info, area FROM plants WHERE account_id = ? ORDER BY server_id').all(accountId)
      : this.db.prepare('SELECT server_id, point, shape, info, area FROM plants WHERE account_id = ? AND parcel_server_id = ? ORDER BY server_id').all(accountId, parcelServerId)) as
      { server_id: number; point: string; shape: string | null; info: string | null; area: string }[];
  }

  outbox(accountId?: string): OutboxRow[] {
    return (accountId
      ? this.db.prepare("SELECT * FROM outbox WHERE account_id = ? AND state != 'committed' ORDER BY id").all(accountId)
      : this.db.prepare("SELECT * FROM outbox WHERE state != 'committed' ORDER BY id").all()) as OutboxRow[];
  }

  /** Per account, how many farms and parcels its last pull held back as deleted on the service (migration 019). */
  heldDeletions(accountId?: string): { account_id: string; farms: number; parcels: number }[] {
    return this.db.prepare(`SELECT account_id, SUM(entity = 'farm') AS farms, SUM(entity = 'parcel') AS parcels FROM held_deletions
      WHERE ? IS NULL OR account_id = ? GROUP BY account_id ORDER BY account_id`).all(accountId ?? null, accountId ?? null) as ReturnType<MirrorReader['heldDeletions']>;
  }

  conflicts(): { id: number; account_id: string; entity: string; local_id: string; kind: string; fields: string; base: string | null; mine: string | null; theirs: string | null; created: string }[] {
    return this.db.prepare('SELECT * FROM conflicts WHERE resolved IS NULL ORDER BY id').all() as ReturnType<MirrorReader['conflicts']>;
  }

  /** Counts for `status --json`: entities with nothing left to send count as synced. */
  status(accountId?: string): StatusCounts {
    const acc = accountId ?? null;
    const by = this.db.prepare(`SELECT state, COUNT(*) AS n FROM outbox WHERE state != 'committed' AND (? IS NULL OR account_id = ?) GROUP BY state`).all(acc, acc) as { state: string; n: number }[];
    const n = (s: string) => by.find((b) => b.state === s)?.n ?? 0;
    // The parcels: all those the service has (the farms' totals, farm_totals of migration 014: counted on
    // parcels_synced it read a million index entries), less those of them with an open op (few, found by local id):
    // asked as NOT IN, SQLite read every parcel's row (2.3 GB for a million).
    const synced = (this.db.prepare(`SELECT
        (SELECT coalesce(sum(synced), 0) FROM farm_totals WHERE (? IS NULL OR account_id = ?)) -
        (SELECT COUNT(*) FROM parcels WHERE deleted = 0 AND server_id IS NOT NULL AND (? IS NULL OR account_id = ?)
          AND local_id IN (SELECT local_id FROM outbox WHERE entity = 'parcel' AND state != 'committed')) +
        (SELECT COUNT(*) FROM farms WHERE deleted = 0 AND server_id IS NOT NULL AND (? IS NULL OR account_id = ?)
          AND local_id NOT IN (SELECT local_id FROM outbox WHERE entity = 'farm' AND state != 'committed')) +
        (SELECT COUNT(*) FROM crops WHERE deleted = 0 AND server_id IS NOT NULL AND (? IS NULL OR account_id = ?)
          AND local_id NOT IN (SELECT local_id FROM outbox WHERE entity = 'crop' AND state != 'committed')) AS n`)
      .get(acc, acc, acc, acc, acc, acc, acc, acc) as { n: number }).n;
    const conflicts = (this.db.prepare('SELECT COUNT(*) AS n FROM conflicts WHERE resolved IS NULL AND (? IS NULL OR account_id = ?)').get(acc, acc) as { n: number }).n;
    return { pending: n('queued'), in_flight: n('in_flight'), uncertain: n('uncertain'), synced, rejected: n('rejected'), conflicts: Math.max(conflicts, n('conflict')), blocked: n('blocked') };
  }

  /** The labels of what undo and redo would do, in one account or in any. */
  history(accountId?: string): { undo: string | null; redo: string | null } {
    const acc = accountId ?? null;
    const label = (sql: string) => (this.db.prepare(sql).pluck().get(acc, acc) as string | undefined) ?? null;
    return {
      undo: label('SELECT label FROM history WHERE undone = 0 AND (? IS NULL OR account_id = ?) ORDER BY id DESC LIMIT 1'),
      redo: label('SELECT label FROM history WHERE undone = 1 AND (? IS NULL OR account_id = ?) ORDER BY id ASC LIMIT 1'),
    };
  }

  canUndo(): boolean {
    return this.db.prepare('SELECT 1 FROM history WHERE undone = 0 LIMIT 1').get() !== undefined;
  }
  canRedo(): boolean {
    return this.db.prepare('SELECT 1 FROM history WHERE undone = 1 LIMIT 1').get() !== undefined;
  }

  // ---- the named queries of db/'s other modules, on this handle: the backend reads through the reader only ----

  cropFamilies(accountId: string): FamilyRow[] { return cropFamilies(this.db, accountId); }
  findFamily(accountId: string, by: { id: number } | { name: string }): FamilyRow | undefined { return findFamily(this.db, accountId, by); }
  farmCrops(farmLocalId: string): CropRow[] { return farmCrops(this.db, farmLocalId); }
  colourNames(accountId: string): { families: string[]; crops: string[] } { return colourNames(this.db, accountId); }
  accountCampaigns(accountId: string): { campaign: string; started: number }[] { return accountCampaigns(this.db, accountId); }
  plantsInBox(accountId: string, bbox: readonly [number, number, number, number], limit: number): PlantHit[] { return plantsInBox(this.db, accountId, bbox, limit); }
  parcelPlants(accountId: string, parcelServerId: number, limit: number): { count: number; plants: PlantHit[] } { return parcelPlants(this.db, accountId, parcelServerId, limit); }
  syncPreview(accountId: string): SyncPreview { return syncPreview(this.db, accountId); }
  syncItems(accountId: string): SyncItem[] { return syncItems(this.db, accountId); }
  unsyncedWork(accountId: string): UnsyncedWork { return unsyncedWork(this.db, accountId); }
  openConflict(id: number): ConflictRow | undefined { return openConflictById(this.db, id); }
}
