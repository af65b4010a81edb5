// Plants as every store shows them: the row, its Feature JSON, and the import file's checks (not SQL).
import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';
import { validatePlantCollection, type ValidPlant } from '../../core/plants/validate.ts';
import { pointInRing } from '../../core/geo/contains.ts';
import type { PolygonCoords } from '../../core/geo/types.ts';
import type { Scope } from './scope.ts';
import type { Store } from './store.ts';
import type { PlantRow, PlantQuery } from './rows.ts';
export type { PlantRow, PlantQuery } from './rows.ts';



export function plantJson(r: PlantRow): string {
  return `{"type":"Feature","id":${r.id},"geometry":{"type":"Point","coordinates":${r.point}},"properties":{"area":"${r.area_m2.toFixed(2)}","key":"${r.key}","shape":${r.shape === null ? 'null' : `{"type":"Polygon","coordinates":${r.shape}}`},"info":${r.info ?? 'null'},"created":"${r.created}","modified":"${r.modified}","parcel":${r.parcel_id ?? 'null'},"crop":${r.crop_id ?? 'null'}}}`;
}

/**
 * GET /api/plants/: a FeatureCollection; `search` matches the plant's key or text inside its info. With `nextUrl`
 * the collection ends with `next`: that function's URL after the page's last id when more plants match, else null.
 */
export async function listPlantsJson(store: Store, scope: Scope, q: PlantQuery, nextUrl?: (after: number) => string): Promise<string> {
  const { rows, hasMore } = await store.plants.list(scope, q);
  const next = nextUrl ? `,"next":${hasMore ? JSON.stringify(nextUrl(rows[rows.length - 1]!.id)) : 'null'}` : '';
  return `{"type":"FeatureCollection","features":[${rows.map(plantJson).join(',')}]${next}}`;
}

export const getPlantJson = async (store: Store, scope: Scope, id: number): Promise<string> => plantJson(await store.plants.get(scope, id));

/** The plants of an import file, or the file's problems as one error: nothing of a file with a problem is imported. */
export function plantsToImport(collection: unknown): ValidPlant[] {
  const { plants, problems } = validatePlantCollection(collection);
  if (problems.length) {
    throw new ApiError(ErrorCode.validationFailed, `${problems.length} problem(s) in the plant file; nothing was imported. ${problems[0]!.message}`,
      problems.map((p) => ({ index: p.index, path: p.path, code: p.code, message: p.message })));
  }
  return plants;
}

export const plantParcelInvalid = (i: number, parcel: number): ApiError =>
  new ApiError(ErrorCode.validationFailed, `Plant ${i}: parcel ${parcel} does not exist; nothing was imported`, [
    { index: i, path: `features/${i}/properties/parcel`, code: 'parcel_invalid', message: `parcel ${parcel} does not exist` },
  ]);
export const plantCropInvalid = (i: number, crop: number): ApiError =>
  new ApiError(ErrorCode.validationFailed, `Plant ${i}: crop ${crop} does not exist; nothing was imported`, [
    { index: i, path: `features/${i}/properties/crop`, code: 'crop_invalid', message: `crop ${crop} does not exist` },
  ]);

/** A parcel's outline as the import places plants: its bounding box and GeoJSON Polygon geometry text. */
export interface ParcelOutline { id: number; geometry: string; minx: number; miny: number; maxx: number; maxy: number }

/** Finds, among `parcels`, the one whose polygon (holes excluded) contains a point; each outline is parsed once. */
export function parcelLocator(parcels: readonly ParcelOutline[]): (pt: number[]) => number | null {
  const rings = new Map<number, PolygonCoords>();
  return (pt) => {
    for (const p of parcels) {
      if (pt[0]! < p.minx || pt[0]! > p.maxx || pt[1]! < p.miny || pt[1]! > p.maxy) continue;
      let coords = rings.get(p.id);
      if (!coords) rings.set(p.id, (coords = (JSON.parse(p.geometry) as { coordinates: PolygonCoords }).coordinates));
      if (pointInRing(pt, coords[0]!) && !coords.slice(1).some((h) => pointInRing(pt, h))) return p.id;
    }
    return null;
  };
}
