// The offline-area benchmark's tile server as a process of its own (bench/offline-area.ts), on PORT: XYZ tiles of
// test/helpers/tile-server.ts, each one of 16 real PNGs of noise of about 10.5 KB (an orthophoto's tiles do not
// compress either), chosen by the tile's place, so both sides of a pair fetch the same bytes; each answered after
// DELAY_MS (0: at once).
import { startTileServer } from '../../test/helpers/tile-server.ts';
import { rgbPng } from '../../test/helpers/png.ts';

const VARIANTS = 16;
/**
 * 64×64 pixels of noise: about 10.5 KB as PNG, a typical size for a 256-pixel JPEG orthophoto tile. The generator's
 * high bits: its low eight repeat every 256 draws, and PNG squeezed such "noise" to 2.3 KB (the tiles were that small
 * until issue 30's zero-delay pairs measured them).
 */
let seed = 12345;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return (seed >>> 16) & 0xff;
};
const tiles = Array.from({ length: VARIANTS }, () => rgbPng(64, () => [random(), random(), random()]));
const delayMs = Number(process.env.DELAY_MS ?? 0);
const server = await startTileServer({ tile: (z, x, y) => tiles[(x * 7 + y * 13 + z) % VARIANTS]!, delayMs }, Number(process.env.PORT));
process.stdout.write(`tile server at ${server.base}, tiles of ${tiles.map((t) => t.length).join(', ')} bytes\n`);
process.on('SIGTERM', () => { void server.close().then(() => process.exit(0)); });
