// Well-Known Binary (OGC Simple Features; ISO and EWKB dimension flags) to GeoJSON geometry, and GeoPackage's
// geometry blob around it (GeoPackage 1.3 §2.1.3: "GP", version, flags, SRS id, envelope, then WKB). Two dimensions
// are kept (a height or measure is read past): a layer overlay is drawn and snapped to in plan. Pure; throws
// WkbError on bytes that are not a geometry, never reads past the blob.

export class WkbError extends Error {}

export interface Geometry {
  type: string;
  coordinates?: unknown;
  geometries?: Geometry[];
}

const TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'];
/** Nesting accepted (a collection in a collection…): real data nests two levels. */
const MAX_DEPTH = 32;

class Reader {
  pos = 0;
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  need(n: number): void {
    if (this.pos + n > this.bytes.length) throw new WkbError('the geometry ends early');
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }
  u32(le: boolean): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, le);
    this.pos += 4;
    return v;
  }
  f64(le: boolean): number {
    this.need(8);
    const v = this.view.getFloat64(this.pos, le);
    this.pos += 8;
    return v;
  }
}

function geometry(r: Reader, depth: number): Geometry {
  if (depth > MAX_DEPTH) throw new WkbError('the geometry nests too deep');
  const order = r.u8();
  if (order > 1) throw new WkbError('not a WKB geometry (byte order)');
  const le = order === 1;
  let code = r.u32(le);
  let dims = 2;
  // EWKB: Z, M and SRID flags in the high bits (an SRID follows the type).
  if (code & 0x20000000) r.u32(le);
  if (code & 0x80000000) dims++;
  if (code & 0x40000000) dims++;
  code &= 0x0fffffff;
  // ISO: 1000 Z, 2000 M, 3000 ZM.
  const iso = Math.floor(code / 1000);
  if (iso >= 1 && iso <= 3) dims += iso === 3 ? 2 : 1;
  const type = TYPES[code % 1000];
  if (!type || code % 1000 === 0) throw new WkbError(`not a geometry type WKB has (${code})`);
  const point = (): number[] => {
    const x = r.f64(le);
    const y = r.f64(le);
    for (let i = 2; i < dims; i++) r.f64(le);
    return [x, y];
  };
  const count = (each: number) => {
    const n = r.u32(le);
    // Each item takes at least `each` bytes: a count the blob cannot hold is refused before any array is made.
    r.need(n * each);
    return n;
  };
  const line = () => Array.from({ length: count(dims * 8) }, point);
  const rings = () => Array.from({ length: count(4) }, line);
  switch (type) {
    case 'Point': {
      const p = point();
      // An empty point is NaN, NaN.
      return Number.isNaN(p[0]) && Number.isNaN(p[1]) ? { type: 'Point', coordinates: [] } : { type, coordinates: p };
    }
    case 'LineString': return { type, coordinates: line() };
    case 'Polygon': return { type, coordinates: rings() };
    default: {
      const parts = Array.from({ length: count(5) }, () => geometry(r, depth + 1));
      if (type === 'GeometryCollection') return { type, geometries: parts };
      return { type, coordinates: parts.map((g) => g.coordinates) };
    }
  }
}

/** The geometry in WKB `bytes`. */
export function readWkb(bytes: Uint8Array): Geometry {
  return geometry(new Reader(bytes), 0);
}

/** Envelope sizes by GeoPackage's envelope contents indicator. */
const ENVELOPE = [0, 32, 48, 48, 64];

/** A GeoPackage geometry blob: its SRS id, and its geometry (null when it says it is empty). */
export function readGpkgGeometry(blob: Uint8Array): { srsId: number; geometry: Geometry | null } {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) throw new WkbError('not a GeoPackage geometry (no GP header)');
  const flags = blob[3]!;
  const le = (flags & 1) === 1;
  const envelope = ENVELOPE[(flags >> 1) & 7];
  if (envelope === undefined) throw new WkbError('not a GeoPackage geometry (envelope)');
  const srsId = new DataView(blob.buffer, blob.byteOffset, blob.byteLength).getInt32(4, le);
  if ((flags >> 4) & 1) return { srsId, geometry: null };
  const start = 8 + envelope;
  if (start >= blob.length) throw new WkbError('the geometry ends early');
  return { srsId, geometry: readWkb(blob.subarray(start)) };
}
