// The bare loop of the offline-area benchmark, as a process of its own: fetches the tiles listed in a file (one
// "z/x/y" a line) from an XYZ template, `concurrency` at a time with Node's fetch (the host's own HTTP client),
// reading each body whole and checking its status; nothing is kept. Usage: node bare-tiles.mjs TEMPLATE FILE CONCURRENCY
/* global fetch */
import { readFileSync } from 'node:fs';
import process from 'node:process';

const [template, file, concurrency] = process.argv.slice(2);
const tiles = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
let next = 0;
let bytes = 0;
const worker = async () => {
  while (next < tiles.length) {
    const [z, x, y] = tiles[next++].split('/');
    const res = await fetch(template.replace('{z}', z).replace('{x}', x).replace('{y}', y));
    const body = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`bare loop: ${res.status} for ${z}/${x}/${y}`);
    bytes += body.length;
  }
};
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
process.stdout.write(`${tiles.length} tiles, ${bytes} bytes\n`);
