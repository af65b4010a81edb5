// One tile of an online layer, fetched once by the host, so the page can tell a server down from a tile the server
// has not (an image's error in the page has no status: a 404 beyond a regional service's coverage and a dropped
// connection look the same). The address is built from the layer as the host keeps it (backend/tile-source.ts),
// never from one the page sends; one probe per layer at a time, its answer shared by those asking meanwhile.
import { RpcCode, RpcError } from '../core/rpc.ts';
import type { MapLayer } from '../core/api-layers.ts';
import { tileAddresses } from './tile-source.ts';
import { TILE_POLICY, TileFetcher } from './tile-fetcher.ts';

export type ProbeAnswer = { answer: 'tile' | 'none' | 'failed'; why: string | null };

/** One try, within 10 s: a probe says how the server is now, it does not wait it out. */
const PROBE_POLICY = { ...TILE_POLICY, attempts: 1, timeoutMs: 10_000 };

export class LayerProbes {
  private readonly running = new Map<string, Promise<ProbeAnswer>>();

  /** Layer `layer`'s tile z/x/y (XYZ rows), as its server answers now. */
  probe(layer: MapLayer, z: number, x: number, y: number): Promise<ProbeAnswer> {
    if (x >= 2 ** z || y >= 2 ** z) throw new RpcError(RpcCode.invalidArguments, `There is no tile ${z}/${x}/${y}: at zoom ${z} x and y are below ${2 ** z}.`);
    let p = this.running.get(layer.id);
    if (!p) {
      p = once(layer, z, x, y).finally(() => this.running.delete(layer.id));
      this.running.set(layer.id, p);
    }
    return p;
  }
}

async function once(layer: MapLayer, z: number, x: number, y: number): Promise<ProbeAnswer> {
  let address: string | null;
  try {
    address = (await tileAddresses(layer, z, z))({ z, x, y });
  } catch (err) {
    // A WMTS service whose capabilities cannot be read, or without this zoom: the tile cannot be had.
    return { answer: 'failed', why: (err as Error).message };
  }
  if (address === null) return { answer: 'none', why: null };
  const fetcher = new TileFetcher(new AbortController().signal, PROBE_POLICY);
  try {
    const got = await fetcher.fetch(address);
    if (got.kind === 'tile') return { answer: 'tile', why: null };
    if (got.kind === 'empty') return { answer: 'none', why: null };
    return { answer: 'failed', why: got.why.replace(/ \(1 tries\)$/, '') };
  } finally {
    await fetcher.close();
  }
}
