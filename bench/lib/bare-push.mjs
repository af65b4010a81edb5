// The bare loop of the push benchmark, as a process of its own: posts prepared request bodies (one JSON body per
// line of a file) to POST /api/parcels/, `inFlight` at a time over that many keep-alive connections (undici, the
// engine's HTTP client), asking for the answers compressed as the engine does and decoding them, checking each 201;
// nothing else. Usage: node bare-push.mjs URL BODIES HEADERS_JSON IN_FLIGHT
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { Pool } from 'undici';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

const [url, file, headersJson, inFlight] = process.argv.slice(2);
const bodies = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
const headers = { ...JSON.parse(headersJson), 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'br, gzip' };
const decode = (enc, buf) => (enc === 'br' ? brotliDecompressSync(buf) : enc === 'gzip' ? gunzipSync(buf) : buf);
const pool = new Pool(url, { connections: Number(inFlight), pipelining: 1 });
let next = 0;
const worker = async () => {
  while (next < bodies.length) {
    const body = bodies[next++];
    const res = await pool.request({ method: 'POST', path: '/api/parcels/', headers, body });
    const text = decode(res.headers['content-encoding'], Buffer.from(await res.body.arrayBuffer())).toString('utf8');
    if (res.statusCode !== 201) throw new Error(`bare loop: ${res.statusCode} ${text.slice(0, 300)}`);
  }
};
await Promise.all(Array.from({ length: Number(inFlight) }, worker));
await pool.close();
