// The z values of PointZ and PolygonZ shapefiles, which the `shapefile` package reads past (it returns x and y only).
// They are read here from the .shp records (ESRI Shapefile Technical Description, 1998) and given back to the
// positions as their third number: the core, the mirror and the service keep 3D positions as they are.

const POINT_Z = 11;
const POLYGON_Z = 15;

/** Per record, its z values in point order (one for a PointZ), or null for a null shape. */
type RecordZ = number[] | null;

/**
 * The z values of every record, or null when the file has none (not PointZ / PolygonZ) or they cannot be read
 * whole (a truncated record): then nothing is attached and the caller says so.
 */
export function readShapeZ(shp: Uint8Array): { type: number; records: RecordZ[] } | null {
  if (shp.length < 100) return null;
  const view = new DataView(shp.buffer, shp.byteOffset, shp.byteLength);
  const type = view.getInt32(32, true);
  if (type !== POINT_Z && type !== POLYGON_Z) return null;
  const records: RecordZ[] = [];
  for (let at = 100; at + 8 <= shp.length;) {
    const length = view.getInt32(at + 4, false) * 2;
    const content = at + 8;
    const end = content + length;
    if (length < 4 || end > shp.length) return null;
    const recordType = view.getInt32(content, true);
    if (recordType === 0) records.push(null);
    else if (recordType !== type) return null;
    else if (type === POINT_Z) {
      if (length < 28) return null;
      records.push([view.getFloat64(content + 20, true)]);
    } else {
      const parts = view.getInt32(content + 36, true);
      const points = view.getInt32(content + 40, true);
      const zAt = content + 44 + 4 * parts + 16 * points + 16;
      if (parts < 0 || points < 0 || zAt + 8 * points > end) return null;
      const zs = new Array<number>(points);
      for (let i = 0; i < points; i++) zs[i] = view.getFloat64(zAt + 8 * i, true);
      records.push(zs);
    }
    at = end;
  }
  return { type, records };
}

/** Ring k of a record: its positions with their z, as [x, y, z]; `parts` are the start indexes of its rings. */
function ringsWithZ(record: { xy: number[][]; z: number[] }, parts: number[]): number[][][] {
  return parts.map((start, k) => {
    const stop = parts[k + 1] ?? record.xy.length;
    return record.xy.slice(start, stop).map((p, i) => [p[0]!, p[1]!, record.z[start + i]!]);
  });
}

/** The x, y of every point of each PolygonZ record and the start of each of its parts. */
function readXY(shp: Uint8Array): { xy: number[][]; parts: number[] }[] {
  const view = new DataView(shp.buffer, shp.byteOffset, shp.byteLength);
  const out: { xy: number[][]; parts: number[] }[] = [];
  for (let at = 100; at + 8 <= shp.length;) {
    const content = at + 8;
    const length = view.getInt32(at + 4, false) * 2;
    if (view.getInt32(content, true) === 0) out.push({ xy: [], parts: [] });
    else {
      const n = view.getInt32(content + 36, true);
      const m = view.getInt32(content + 40, true);
      const parts = Array.from({ length: n }, (_, j) => view.getInt32(content + 44 + 4 * j, true));
      const xyAt = content + 44 + 4 * n;
      out.push({ parts, xy: Array.from({ length: m }, (_, i) => [view.getFloat64(xyAt + 16 * i, true), view.getFloat64(xyAt + 16 * i + 8, true)]) });
    }
    at = content + length;
  }
  return out;
}

const sameXY = (a: readonly number[][], b: readonly number[][]) => a.length === b.length && a.every((p, i) => p[0] === b[i]![0] && p[1] === b[i]![1]);

/**
 * Gives each feature's positions their z. The reader builds a feature's rings from the record's parts (holes
 * assigned to the polygon holding them), so each ring is matched to the part with the same x, y sequence.
 * Returns false, leaving the features as they were, when the records and features do not line up.
 */
export function attachZ(features: readonly unknown[], shp: Uint8Array, z: { type: number; records: RecordZ[] }): boolean {
  if (z.records.length !== features.length) return false;
  const xy = z.type === POLYGON_Z ? readXY(shp) : null;
  if (xy && xy.length !== features.length) return false;
  const updates: (() => void)[] = [];
  for (let f = 0; f < features.length; f++) {
    const g = (features[f] as { geometry?: { type?: string; coordinates?: unknown } | null }).geometry;
    const zs = z.records[f];
    if (!g || !zs) continue;
    if (z.type === POINT_Z) {
      const c = g.coordinates as number[];
      updates.push(() => { g.coordinates = [c[0]!, c[1]!, zs[0]!]; });
      continue;
    }
    const record = xy![f]!;
    const rings = ringsWithZ({ xy: record.xy, z: zs }, record.parts);
    const used = new Set<number>();
    const polygons = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as number[][][][];
    const replaced: number[][][][] = [];
    for (const polygon of polygons) {
      const withZ: number[][][] = [];
      for (const ring of polygon) {
        const k = rings.findIndex((r, i) => !used.has(i) && sameXY(r, ring));
        if (k < 0) return false;
        used.add(k);
        withZ.push(rings[k]!);
      }
      replaced.push(withZ);
    }
    updates.push(() => { g.coordinates = g.type === 'Polygon' ? replaced[0] : replaced; });
  }
  for (const u of updates) u();
  return true;
}
