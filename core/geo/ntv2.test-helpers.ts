// Test helper: a small NTv2 grid file (.gsb), as national mapping agencies publish them (one subgrid, shifts in
// arc-seconds, longitudes positive west), written from a function of the position, so grid shifts can be tested
// without a national grid file, and compared with PROJ reading the very same file.

export interface GridSpec {
  /** South, north, west and east edges in degrees (east positive, as everywhere else here). */
  south: number; north: number; west: number; east: number;
  /** Node spacing in degrees. */
  step: number;
  /** The shift at a node, in arc-seconds: latitude (north positive) and longitude (east positive). */
  shift: (lon: number, lat: number) => [number, number];
}

export function ntv2Grid(g: GridSpec): ArrayBuffer {
  const cols = Math.round((g.east - g.west) / g.step) + 1;
  const rows = Math.round((g.north - g.south) / g.step) + 1;
  const nodes = cols * rows;
  const buf = new ArrayBuffer(176 + 176 + nodes * 16 + 16);
  const v = new DataView(buf);
  const text = (at: number, s: string) => {
    for (let i = 0; i < 8; i++) v.setUint8(at + i, i < s.length ? s.charCodeAt(i) : 0x20);
  };
  const int = (at: number, key: string, n: number) => { text(at, key); v.setInt32(at + 8, n, true); };
  const dbl = (at: number, key: string, n: number) => { text(at, key); v.setFloat64(at + 8, n, true); };
  const str = (at: number, key: string, s: string) => { text(at, key); text(at + 8, s); };
  int(0, 'NUM_OREC', 11); int(16, 'NUM_SREC', 11); int(32, 'NUM_FILE', 1); str(48, 'GS_TYPE', 'SECONDS');
  str(64, 'VERSION', 'TEST'); str(80, 'SYSTEM_F', 'FROM'); str(96, 'SYSTEM_T', 'ETRS89');
  dbl(112, 'MAJOR_F', 6377563.396); dbl(128, 'MINOR_F', 6356256.909); dbl(144, 'MAJOR_T', 6378137); dbl(160, 'MINOR_T', 6356752.314);
  const s = 176;
  str(s, 'SUB_NAME', 'TEST'); str(s + 16, 'PARENT', 'NONE'); str(s + 32, 'CREATED', '20240101'); str(s + 48, 'UPDATED', '20240101');
  // Seconds; longitudes positive west, so the east edge is the lower bound.
  dbl(s + 64, 'S_LAT', g.south * 3600); dbl(s + 80, 'N_LAT', g.north * 3600);
  dbl(s + 96, 'E_LONG', -g.east * 3600); dbl(s + 112, 'W_LONG', -g.west * 3600);
  dbl(s + 128, 'LAT_INC', g.step * 3600); dbl(s + 144, 'LONG_INC', g.step * 3600);
  int(s + 160, 'GS_COUNT', nodes);
  // Rows from south to north, each from east to west.
  let at = s + 176;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [dLat, dLon] = g.shift(g.east - c * g.step, g.south + r * g.step);
      v.setFloat32(at, dLat, true);
      v.setFloat32(at + 4, -dLon, true);
      at += 16;
    }
  }
  text(at, 'END');
  return buf;
}
