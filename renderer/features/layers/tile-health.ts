// Whether an online layer's server is failing. A tile failing in the page says little: an image's error has no
// status, so a 404 beyond a regional service's coverage looks like a dropped connection, and a layer whose tiles drew
// beside such holes was shown as "cannot be loaded" by whichever tile ended last. So on a tile's error the page asks
// the host to fetch that tile once (layerProbe): only a failure there (offline, refused, a server error) makes the
// layer unavailable, said with the host's reason; a tile that loads again makes it available. One probe at a time
// per layer, and none for a few seconds after the server answered well, so a view full of 404s costs a probe or two.

/** A tile in XYZ numbering (rows from the top), the numbering the host's probe takes. */
export interface XyzTile { z: number; x: number; y: number }
export type ProbeAnswer = { answer: 'tile' | 'none' | 'failed'; why: string | null };

/** After the server answered well, tile errors are not probed again for this long. */
export const QUIET_MS = 5000;

const E = 20037508.342789244;

/**
 * The XYZ tile at the centre of a tile of EPSG:3857 `extent` drawn at `resolution` metres a pixel (any 3857 grid: a
 * WMS's, a WMTS set's), or null outside the world.
 */
export function xyzTileAt(extent: readonly number[], resolution: number): XyzTile | null {
  const [minX, minY, maxX, maxY] = extent as [number, number, number, number];
  const z = Math.max(0, Math.min(24, Math.round(Math.log2((2 * E) / 256 / resolution))));
  const n = 2 ** z;
  const x = Math.floor((((minX + maxX) / 2 + E) / (2 * E)) * n);
  const y = Math.floor(((E - (minY + maxY) / 2) / (2 * E)) * n);
  return x >= 0 && x < n && y >= 0 && y < n ? { z, x, y } : null;
}

export class LayerHealth {
  private failing = false;
  private probing = false;
  private quietUntil = -Infinity;
  /** A tile that failed while quiet, asked about when the quiet ends (unless a tile loads meanwhile). */
  private pending: XyzTile | null = null;

  constructor(
    private readonly probe: (t: XyzTile) => Promise<ProbeAnswer>,
    /** The layer failing (the host's reason) or loading again (null). */
    private readonly report: (why: string | null) => void,
    private readonly now: () => number = () => performance.now(),
    private readonly later: (fn: () => void, ms: number) => void = (fn, ms) => { setTimeout(fn, ms); },
  ) {}

  /** A tile loaded: the server is there. */
  loaded(): void {
    this.pending = null;
    if (!this.failing) return;
    this.failing = false;
    this.report(null);
  }

  /** A tile failed: `tile` where known (null: a tile the host cannot be asked about, taken as failing). */
  failed(tile: XyzTile | null): void {
    if (this.failing || this.probing) return;
    if (this.now() < this.quietUntil) {
      // The server went down just after answering well: its tiles' errors are not forgotten.
      if (tile && !this.pending) this.later(() => this.askPending(), this.quietUntil - this.now());
      if (tile) this.pending = tile;
      return;
    }
    if (!tile) {
      this.failing = true;
      this.report('offline, or the server is down');
      return;
    }
    this.probing = true;
    this.probe(tile).then(({ answer, why }) => {
      if (answer === 'failed') {
        this.failing = true;
        this.report(why ?? 'offline, or the server is down');
      } else {
        this.quietUntil = this.now() + QUIET_MS;
      }
    }, () => {
      // The host could not be asked (it is restarting): the next error asks again.
    }).finally(() => { this.probing = false; });
  }

  private askPending(): void {
    const tile = this.pending;
    this.pending = null;
    if (tile) this.failed(tile);
  }
}
