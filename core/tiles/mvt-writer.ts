// A Mapbox Vector Tile (MVT 2.1) writer: layers of points and polygons in tile coordinates, with string and number
// properties, as protobuf bytes. Pure code (no I/O): the host cuts the parcels' tiles with it (db/parcel-tiles.ts)
// and OpenLayers' MVT format reads them. Written here rather than through a package: the format is four messages,
// and the repository's pbf is only OpenLayers' own dependency.

/** A feature's geometry: one point, or polygons as rings of [x, y] integer tile coordinates (exterior first). */
export type MvtGeometry = { type: 'point'; x: number; y: number } | { type: 'polygon'; polygons: number[][][][] };

export interface MvtFeature {
  /** An unsigned integer id (MVT's `id`), or none. */
  id?: number;
  geometry: MvtGeometry;
  properties: Record<string, string | number | boolean>;
}

export interface MvtLayer {
  name: string;
  /** Tile coordinates run 0..extent (4096 by default). */
  extent?: number;
  features: MvtFeature[];
}

/** A growable byte buffer with protobuf's varints and length-delimited fields. */
class Writer {
  private buf = new Uint8Array(1024);
  pos = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** An unsigned varint; arithmetic, not bit operators, so values past 2^31 stay exact. */
  varint(n: number): void {
    this.room(10);
    let v = n;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  tag(field: number, wire: number): void { this.varint(field * 8 + wire); }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  string(field: number, s: string): void { this.bytes(field, new TextEncoder().encode(s)); }

  double(field: number, n: number): void {
    this.tag(field, 1);
    this.room(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).setFloat64(0, n, true);
    this.pos += 8;
  }

  packed(field: number, values: readonly number[]): void {
    const inner = new Writer();
    for (const v of values) inner.varint(v);
    this.bytes(field, inner.finish());
  }

  finish(): Uint8Array { return this.buf.slice(0, this.pos); }
}

const zigzag = (n: number): number => (n < 0 ? -2 * n - 1 : 2 * n);
const command = (id: number, count: number): number => id + count * 8;

/** MVT's geometry commands: MoveTo, LineTo and ClosePath with zigzagged deltas from the cursor. */
function encodeGeometry(g: MvtGeometry): number[] {
  if (g.type === 'point') return [command(1, 1), zigzag(g.x), zigzag(g.y)];
  const out: number[] = [];
  let cx = 0;
  let cy = 0;
  for (const polygon of g.polygons) {
    for (const ring of polygon) {
      // A ring is written open: ClosePath joins its last vertex to its first.
      const n = ring.length > 1 && ring[0]![0] === ring[ring.length - 1]![0] && ring[0]![1] === ring[ring.length - 1]![1] ? ring.length - 1 : ring.length;
      if (n < 3) continue;
      for (let i = 0; i < n; i++) {
        const [x, y] = ring[i]!;
        if (i === 0) out.push(command(1, 1));
        else if (i === 1) out.push(command(2, n - 1));
        out.push(zigzag(x! - cx), zigzag(y! - cy));
        cx = x!;
        cy = y!;
      }
      out.push(command(7, 1));
    }
  }
  return out;
}

/** A value message: a string, a double, or a boolean. */
function encodeValue(v: string | number | boolean): Uint8Array {
  const w = new Writer();
  if (typeof v === 'string') w.string(1, v);
  else if (typeof v === 'boolean') { w.tag(7, 0); w.varint(v ? 1 : 0); }
  else w.double(3, v);
  return w.finish();
}

function encodeLayer(layer: MvtLayer): Uint8Array {
  const keys = new Map<string, number>();
  const values = new Map<string, number>();
  const valueList: (string | number | boolean)[] = [];
  const w = new Writer();
  w.tag(15, 0);
  w.varint(2);
  w.string(1, layer.name);
  for (const f of layer.features) {
    const geometry = encodeGeometry(f.geometry);
    if (!geometry.length) continue;
    const tags: number[] = [];
    for (const [k, v] of Object.entries(f.properties)) {
      let ki = keys.get(k);
      if (ki === undefined) keys.set(k, (ki = keys.size));
      const vk = `${typeof v}:${String(v)}`;
      let vi = values.get(vk);
      if (vi === undefined) { values.set(vk, (vi = valueList.length)); valueList.push(v); }
      tags.push(ki, vi);
    }
    const fw = new Writer();
    if (f.id !== undefined) { fw.tag(1, 0); fw.varint(f.id); }
    if (tags.length) fw.packed(2, tags);
    fw.tag(3, 0);
    fw.varint(f.geometry.type === 'point' ? 1 : 3);
    fw.packed(4, geometry);
    w.bytes(2, fw.finish());
  }
  for (const k of keys.keys()) w.string(3, k);
  for (const v of valueList) w.bytes(4, encodeValue(v));
  w.tag(5, 0);
  w.varint(layer.extent ?? 4096);
  return w.finish();
}

/** The tile's bytes: each layer as field 3 of the Tile message. */
export function writeMvt(layers: readonly MvtLayer[]): Uint8Array {
  const w = new Writer();
  for (const l of layers) w.bytes(3, encodeLayer(l));
  return w.finish();
}
