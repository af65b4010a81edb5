// The bare download of the pull benchmark, as a process of its own: the same listings the engine's first pull reads
// (GET /api/farms/, then every farm's parcels in pages of `pageSize` following `next`), `inFlight` farms at a time
// over that many keep-alive connections (undici, the engine's HTTP client), asking for brotli or gzip as the engine
// does, each answer decoded and JSON-parsed; nothing else. Usage: node bare-pull.mjs URL HEADERS_JSON IN_FLIGHT PAGE_SIZE
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { URL } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Pool } from 'undici';

const [url, headersJson, inFlight, pageSize] = process.argv.slice(2);
const headers = { ...JSON.parse(headersJson), accept: 'application/json', 'accept-encoding': 'br, gzip' };
const pool = new Pool(url, { connections: Number(inFlight), pipelining: 1 });

async function get(path) {
  const res = await pool.request({ method: 'GET', path, headers });
  const raw = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`bare pull: ${path} ${res.statusCode} ${raw.toString().slice(0, 300)}`);
  const enc = res.headers['content-encoding'];
  const body = enc === 'br' ? brotliDecompressSync(raw) : enc === 'gzip' ? gunzipSync(raw) : raw;
  return { json: JSON.parse(body.toString('utf8')), bytes: raw.length };
}

let parcels = 0;
let bytes = 0;
const farms = (await get('/api/farms/')).json;
let next = 0;
const worker = async () => {
  while (next < farms.length) {
    const farm = farms[next++];
    let path = `/api/farms/${farm.id}/parcels/?limit=${pageSize}`;
    while (path) {
      const page = await get(path);
      bytes += page.bytes;
      parcels += page.json.features.length;
      path = page.json.next ? new URL(page.json.next).pathname + new URL(page.json.next).search : null;
    }
  }
};
await Promise.all(Array.from({ length: Number(inFlight) }, worker));
await pool.close();
process.stdout.write(`${JSON.stringify({ parcels, bytes })}\n`);
