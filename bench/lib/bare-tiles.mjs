// The bare loop of the offline-area benchmark, as a process of its own: fetches the tiles listed in a file (one
// "z/x/y" a line) from an XYZ template, `concurrency` at a time with undici's request on an Agent of its own (the
// host's HTTP client for tiles, backend/tile-fetcher.ts), reading each body whole and checking its status. Given OUT,
// the tiles are kept as plainly as they can be kept alike: in an MBTiles file at OUT (the MBTiles schema, 256 tiles
// a transaction, synchronous=OFF, the file fsynced at the end — a file as durable as the host's, written without its
// journal, checks, thread or progress). Without OUT nothing is kept.
// Usage: node bare-tiles.mjs TEMPLATE FILE CONCURRENCY [OUT]
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { URL } from 'node:url';
import { Agent } from 'undici';

const [template, file, concurrency, out] = process.argv.slice(2);
const tiles = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
const agent = new Agent({ headersTimeout: 30_000, bodyTimeout: 30_000, keepAliveTimeout: 10_000 });
let next = 0;
let bytes = 0;
const store = out ? await mbtiles(out) : null;
const worker = async () => {
  while (next < tiles.length) {
    const [z, x, y] = tiles[next++].split('/');
    const u = new URL(template.replace('{z}', z).replace('{x}', x).replace('{y}', y));
    const res = await agent.request({ origin: u.origin, path: u.pathname, method: 'GET', headers: { accept: 'image/*' } });
    const chunks = [];
    for await (const chunk of res.body) chunks.push(chunk);
    if (res.statusCode !== 200) throw new Error(`bare loop: ${res.statusCode} for ${z}/${x}/${y}`);
    const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    bytes += data.length;
    store?.put(Number(z), Number(x), Number(y), data);
  }
};
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
await agent.close();
store?.close();
process.stdout.write(`${tiles.length} tiles, ${bytes} bytes\n`);

/** An MBTiles file at `path`: put() keeps a tile (committed 256 at a time), close() commits the rest and fsyncs. */
async function mbtiles(path) {
  const { default: Database } = await import('better-sqlite3');
  const { openSync, fsyncSync, closeSync } = await import('node:fs');
  const db = new Database(path);
  db.pragma('page_size = 8192');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE metadata (name TEXT NOT NULL, value TEXT);
    CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL);
    CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);`);
  const insert = db.prepare('INSERT INTO tiles VALUES (?, ?, ?, ?)');
  const commit = db.transaction((rows) => { for (const r of rows) insert.run(...r); });
  let rows = [];
  return {
    put(z, x, y, data) {
      rows.push([z, x, 2 ** z - 1 - y, data]);
      if (rows.length === 256) { commit(rows); rows = []; }
    },
    close() {
      commit(rows);
      db.prepare('INSERT INTO metadata VALUES (?, ?)').run('format', 'png');
      db.close();
      const fd = openSync(path, 'r');
      fsyncSync(fd);
      closeSync(fd);
    },
  };
}
