// The bare loop of the offline-area benchmark, as a process of its own: fetches the tiles listed in a file (one
// "z/x/y" a line) from an XYZ template, `concurrency` at a time with undici's request on an Agent of its own (the
// host's HTTP client for tiles, backend/tile-fetcher.ts), reading each body whole and checking its status; nothing
// is kept. Usage: node bare-tiles.mjs TEMPLATE FILE CONCURRENCY
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { Agent } from 'undici';

const [template, file, concurrency] = process.argv.slice(2);
const tiles = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
const agent = new Agent({ headersTimeout: 30_000, bodyTimeout: 30_000, keepAliveTimeout: 10_000 });
let next = 0;
let bytes = 0;
const worker = async () => {
  while (next < tiles.length) {
    const [z, x, y] = tiles[next++].split('/');
    const u = new URL(template.replace('{z}', z).replace('{x}', x).replace('{y}', y));
    const res = await agent.request({ origin: u.origin, path: u.pathname, method: 'GET', headers: { accept: 'image/*' } });
    const chunks = [];
    for await (const chunk of res.body) chunks.push(chunk);
    if (res.statusCode !== 200) throw new Error(`bare loop: ${res.statusCode} for ${z}/${x}/${y}`);
    bytes += Buffer.concat(chunks).length;
  }
};
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
await agent.close();
process.stdout.write(`${tiles.length} tiles, ${bytes} bytes\n`);
