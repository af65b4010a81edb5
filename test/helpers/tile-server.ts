// A tile server on 127.0.0.1 for the offline-area tests and benchmark: XYZ tiles (/xyz/{z}/{x}/{y}.png), a WMS
// GetMap (/wms) and a WMTS service (/wmts/caps.xml, its tiles by REST template or KVP), every tile a real PNG whose
// colour is chosen by the test — and the faults a real server has, set per tile path: 429 or 503 with Retry-After,
// 500s, a slow answer, a connection reset, a 404. It counts the requests for each path, so a test can tell whether a
// tile was fetched twice.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { rgbPng } from './png.ts';

/** A solid 256-pixel tile. */
export const solidTile = (rgb: [number, number, number]): Buffer => rgbPng(256, () => rgb);

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string; times: number }
  | { kind: 'slow'; ms: number; times: number }
  | { kind: 'reset'; times: number };

export interface TileServerOptions {
  /** The bytes of a tile (by default a solid orange tile, the same for all). */
  tile?: (z: number, x: number, y: number) => Buffer;
  /** Every answer held this long (a server across a network). */
  delayMs?: number;
}

export interface TileServer {
  base: string;
  /** The XYZ template. */
  xyz: string;
  /** The WMS GetMap address (no query). */
  wms: string;
  /** The WMTS capabilities document: layer `ortho` in GoogleMapsCompatible (REST), `kvp` (KVP only), `geo` in a WGS84 set. */
  wmts: string;
  /** Requests per path (with query), in all. */
  requests: Map<string, number>;
  count(): number;
  /** The next `times` requests for `path` (e.g. /xyz/3/1/2.png) meet `fault`; several queue up per path. */
  fault(path: string, fault: Fault): void;
  /** The faults still queued for `path` dropped: it is answered as any other again. */
  heal(path: string): void;
  /** Every tile path (no query) absent: 404. */
  missing: Set<string>;
  close(): Promise<void>;
}

const E = 20037508.342789244;
const ZOOM0_SCALE = 559082264.0287178;

function capabilities(base: string): string {
  const matrices = (crs: 'google' | 'wgs84') => Array.from({ length: 19 }, (_, z) => crs === 'google'
    ? `<TileMatrix><ows:Identifier>${z}</ows:Identifier><ScaleDenominator>${ZOOM0_SCALE / 2 ** z}</ScaleDenominator><TopLeftCorner>${-E} ${E}</TopLeftCorner><TileWidth>256</TileWidth><TileHeight>256</TileHeight><MatrixWidth>${2 ** z}</MatrixWidth><MatrixHeight>${2 ** z}</MatrixHeight></TileMatrix>`
    : `<TileMatrix><ows:Identifier>${z}</ows:Identifier><ScaleDenominator>${279541132.0143589 / 2 ** z}</ScaleDenominator><TopLeftCorner>90 -180</TopLeftCorner><TileWidth>256</TileWidth><TileHeight>256</TileHeight><MatrixWidth>${2 ** (z + 1)}</MatrixWidth><MatrixHeight>${2 ** z}</MatrixHeight></TileMatrix>`).join('');
  const layer = (id: string, set: string, rest: boolean) => `<Layer><ows:Title>${id}</ows:Title><ows:Identifier>${id}</ows:Identifier><Style isDefault="true"><ows:Identifier>normal</ows:Identifier></Style><Format>image/png</Format><TileMatrixSetLink><TileMatrixSet>${set}</TileMatrixSet></TileMatrixSetLink>${rest ? `<ResourceURL format="image/png" resourceType="tile" template="${base}/wmts/rest/${id}/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png"/>` : ''}</Layer>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.0.0">
<ows:OperationsMetadata><ows:Operation name="GetTile"><ows:DCP><ows:HTTP><ows:Get xlink:href="${base}/wmts/kvp?"><ows:Constraint name="GetEncoding"><ows:AllowedValues><ows:Value>KVP</ows:Value></ows:AllowedValues></ows:Constraint></ows:Get></ows:HTTP></ows:DCP></ows:Operation></ows:OperationsMetadata>
<Contents>${layer('ortho', 'GoogleMapsCompatible', true)}${layer('kvp', 'GoogleMapsCompatible', false)}${layer('geo', 'WGS84', true)}
<TileMatrixSet><ows:Identifier>GoogleMapsCompatible</ows:Identifier><ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>${matrices('google')}</TileMatrixSet>
<TileMatrixSet><ows:Identifier>WGS84</ows:Identifier><ows:SupportedCRS>urn:ogc:def:crs:EPSG::4326</ows:SupportedCRS>${matrices('wgs84')}</TileMatrixSet>
</Contents></Capabilities>`;
}

export async function startTileServer(opts: TileServerOptions = {}, port = 0): Promise<TileServer> {
  const orange = solidTile([255, 120, 0]);
  const tile = opts.tile ?? (() => orange);
  const requests = new Map<string, number>();
  const faults = new Map<string, Fault[]>();
  const missing = new Set<string>();
  const sockets = new Set<Socket>();
  let base = '';

  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = Object.fromEntries([...url.searchParams].map(([k, v]) => [k.toUpperCase(), v]));
    if (url.pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (url.pathname === '/wmts/caps.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' }).end(capabilities(base));
      return;
    }
    let zxy: [number, number, number] | null = null;
    const m = /^\/(?:xyz|wmts\/rest\/[a-z]+\/[a-z]+\/[A-Za-z0-9]+)\/(\d+)\/(\d+)\/(\d+)\.png$/.exec(url.pathname);
    if (m && url.pathname.startsWith('/xyz/')) zxy = [Number(m[1]), Number(m[2]), Number(m[3])];
    else if (m) zxy = [Number(m[1]), Number(m[3]), Number(m[2])]; // WMTS REST: matrix, row, column
    else if (url.pathname === '/wmts/kvp' && q.REQUEST === 'GetTile') zxy = [Number(q.TILEMATRIX), Number(q.TILECOL), Number(q.TILEROW)];
    else if (url.pathname === '/wms' && q.REQUEST === 'GetMap') {
      // The tile whose box this is (the host asks WMS for Web Mercator tiles).
      const [minX, , , maxY] = (q.BBOX ?? '').split(',').map(Number) as [number, number, number, number];
      const size = Number((q.BBOX ?? '').split(',')[2]) - minX;
      const z = Math.round(Math.log2((2 * E) / size));
      zxy = [z, Math.round((minX + E) / size), Math.round((E - maxY) / size)];
    }
    if (!zxy || missing.has(url.pathname)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png' }).end(tile(...zxy));
  };

  const server: Server = createServer((req, res) => {
    const key = req.url ?? '/';
    requests.set(key, (requests.get(key) ?? 0) + 1);
    const path = new URL(key, 'http://x').pathname;
    const queue = faults.get(key) ?? faults.get(path);
    const f = queue?.[0];
    if (f) {
      if (--f.times <= 0) queue!.shift();
      if (f.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (f.kind === 'status') {
        res.writeHead(f.status, { 'content-type': 'text/plain', ...(f.retryAfter ? { 'retry-after': f.retryAfter } : {}) }).end(`fault ${f.status}\n`);
        return;
      }
      setTimeout(() => answer(req, res), f.ms);
      return;
    }
    if (opts.delayMs) setTimeout(() => answer(req, res), opts.delayMs);
    else answer(req, res);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base, xyz: `${base}/xyz/{z}/{x}/{y}.png`, wms: `${base}/wms`, wmts: `${base}/wmts/caps.xml`, requests, missing,
    count: () => [...requests.values()].reduce((a, b) => a + b, 0),
    heal(path) {
      faults.delete(path);
    },
    fault(path, fault) {
      const q = faults.get(path) ?? [];
      q.push({ ...fault });
      faults.set(path, q);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
