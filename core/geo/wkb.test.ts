// WKB and GeoPackage geometry blobs (core/geo/wkb.ts): each type in both byte orders, heights and measures read past
// (ISO and EWKB), an empty geometry, and bytes that are no geometry refused without reading past them.
import { describe, expect, it } from 'vitest';
import { readGpkgGeometry, readWkb, WkbError } from './wkb.ts';

/** WKB of `type` (with `dims` values a position), written from a plain description. */
function wkb(le: boolean, code: number, body: (w: Writer) => void): Uint8Array {
  const w = new Writer(le);
  w.u8(le ? 1 : 0);
  w.u32(code);
  body(w);
  return w.bytes();
}
class Writer {
  private parts: number[] = [];
  private readonly view = new DataView(new ArrayBuffer(8));
  constructor(readonly le: boolean) {}
  u8(v: number) { this.parts.push(v); }
  u32(v: number) { this.view.setUint32(0, v, this.le); for (let i = 0; i < 4; i++) this.parts.push(this.view.getUint8(i)); }
  f64(v: number) { this.view.setFloat64(0, v, this.le); for (let i = 0; i < 8; i++) this.parts.push(this.view.getUint8(i)); }
  pos(...v: number[]) { for (const x of v) this.f64(x); }
  raw(b: Uint8Array) { this.parts.push(...b); }
  bytes() { return Uint8Array.from(this.parts); }
}

describe('WKB', () => {
  it('reads every type in both byte orders, keeping two dimensions', () => {
    for (const le of [true, false]) {
      expect(readWkb(wkb(le, 1, (w) => w.pos(-3.7, 40.4)))).toEqual({ type: 'Point', coordinates: [-3.7, 40.4] });
      expect(readWkb(wkb(le, 2, (w) => { w.u32(2); w.pos(0, 1, 2, 3); }))).toEqual({ type: 'LineString', coordinates: [[0, 1], [2, 3]] });
      const ring = [[0, 0], [1, 0], [1, 1], [0, 0]];
      const poly = wkb(le, 3, (w) => { w.u32(1); w.u32(4); w.pos(...ring.flat()); });
      expect(readWkb(poly)).toEqual({ type: 'Polygon', coordinates: [ring] });
      expect(readWkb(wkb(le, 6, (w) => { w.u32(2); w.raw(poly); w.raw(poly); }))).toEqual({ type: 'MultiPolygon', coordinates: [[ring], [ring]] });
      const pt = wkb(le, 1, (w) => w.pos(5, 6));
      expect(readWkb(wkb(le, 4, (w) => { w.u32(1); w.raw(pt); }))).toEqual({ type: 'MultiPoint', coordinates: [[5, 6]] });
      expect(readWkb(wkb(le, 7, (w) => { w.u32(2); w.raw(pt); w.raw(poly); }))).toEqual({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [5, 6] }, { type: 'Polygon', coordinates: [ring] }] });
    }
  });

  it('reads past heights and measures, ISO and EWKB alike', () => {
    expect(readWkb(wkb(true, 1001, (w) => w.pos(1, 2, 300)))).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(readWkb(wkb(true, 3002, (w) => { w.u32(2); w.pos(1, 2, 3, 4, 5, 6, 7, 8); }))).toEqual({ type: 'LineString', coordinates: [[1, 2], [5, 6]] });
    expect(readWkb(wkb(true, 0x80000002, (w) => { w.u32(2); w.pos(1, 2, 3, 4, 5, 6); }))).toEqual({ type: 'LineString', coordinates: [[1, 2], [4, 5]] });
    // EWKB with an SRID after the type.
    expect(readWkb(wkb(true, 0x20000001, (w) => { w.u32(4326); w.pos(7, 8); }))).toEqual({ type: 'Point', coordinates: [7, 8] });
  });

  it('refuses what is no geometry, without reading past the bytes', () => {
    expect(() => readWkb(Uint8Array.from([1, 1, 0, 0]))).toThrow(WkbError);
    expect(() => readWkb(wkb(true, 1, (w) => w.pos(1)))).toThrow(/ends early/);
    expect(() => readWkb(wkb(true, 9, () => {}))).toThrow(/not a geometry type/);
    expect(() => readWkb(Uint8Array.from([7]))).toThrow(/byte order/);
    // A count the blob cannot hold: refused before any array is made.
    expect(() => readWkb(wkb(true, 2, (w) => w.u32(0xffffffff)))).toThrow(/ends early/);
    // Collections nested past any real data's depth.
    let g = wkb(true, 1, (w) => w.pos(0, 0));
    for (let i = 0; i < 40; i++) { const inner = g; g = wkb(true, 7, (w) => { w.u32(1); w.raw(inner); }); }
    expect(() => readWkb(g)).toThrow(/nests too deep/);
  });
});

describe('GeoPackage geometry blobs', () => {
  const header = (flags: number, srs: number, envelope: number[]) => {
    const w = new Writer(true);
    w.u8(0x47); w.u8(0x50); w.u8(0); w.u8(flags); w.u32(srs);
    for (const v of envelope) w.f64(v);
    return w.bytes();
  };
  it('reads the SRS id and the geometry after any envelope, and an empty one as none', () => {
    const pt = wkb(true, 1, (w) => w.pos(-3.7, 40.4));
    expect(readGpkgGeometry(Uint8Array.from([...header(1, 4326, []), ...pt]))).toEqual({ srsId: 4326, geometry: { type: 'Point', coordinates: [-3.7, 40.4] } });
    expect(readGpkgGeometry(Uint8Array.from([...header(1 | (1 << 1), 4326, [-3.7, -3.7, 40.4, 40.4]), ...pt])).geometry).toEqual({ type: 'Point', coordinates: [-3.7, 40.4] });
    expect(readGpkgGeometry(Uint8Array.from([...header(1 | (2 << 1), 4326, [0, 0, 0, 0, 0, 0]), ...pt])).geometry?.type).toBe('Point');
    expect(readGpkgGeometry(header(1 | (1 << 4), 4326, []))).toEqual({ srsId: 4326, geometry: null });
    expect(() => readGpkgGeometry(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]))).toThrow(/no GP header/);
    expect(() => readGpkgGeometry(Uint8Array.from([...header(1 | (7 << 1), 4326, [])]))).toThrow(/envelope/);
  });
});
