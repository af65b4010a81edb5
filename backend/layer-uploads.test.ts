// A layer file sent in chunks (backend/layer-uploads.ts, as browser mode's page sends it): written at each chunk's
// place in any order and kept whole at the end, byte for byte; an upload cancelled midway, idle too long or whose
// page went leaves nothing; one page cannot touch another's upload; a chunk out of place or an end before every
// chunk came is refused, the upload going on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { LAYER_FILES_API } from '../core/api-layer-files.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LayerFiles } from './layer-files.ts';
import { LayerUploads, UPLOADS_PER_OWNER } from './layer-uploads.ts';
import { cog } from '../test/helpers/layer-fixtures.ts';
import { LAYER_CHUNK_BYTES, uploadChunks } from '../core/layers/layer-files.ts';

let dir: string;
let tif: Buffer;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-layer-uploads-'));
  // Over 2 MB, so that it takes three chunks (the last one short): not compressed.
  tif = readFileSync(cog(dir, 'big', 25830, [90, 160, 60], 800, 'NONE'));
  expect(tif.length).toBeGreaterThan(2 * LAYER_CHUNK_BYTES);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const chunkOf = (b: Buffer, offset: number) => b.subarray(offset, offset + LAYER_CHUNK_BYTES).toString('base64');

describe('layer uploads', () => {
  it('writes chunks at their places in any order and keeps the file whole at the end', async () => {
    const files = new LayerFiles(mkdtempSync(join(dir, 'home-')));
    const page = {};
    const id = await files.uploads.begin(page, 'Ortofoto.tif', tif.length);
    expect(readdirSync(files.dir)).toEqual([`${id}.upload.part`]);
    // Never listed as a kept file while it is being written.
    expect(files.ids()).toEqual([]);
    const chunks = uploadChunks(tif.length);
    const n = Math.ceil(tif.length / LAYER_CHUNK_BYTES);
    expect(chunks.map((c) => c.length)).toEqual([...Array(n - 1).fill(LAYER_CHUNK_BYTES), tif.length - (n - 1) * LAYER_CHUNK_BYTES]);
    await Promise.all([...chunks].reverse().map((c) => files.uploads.chunk(page, id, c.offset, chunkOf(tif, c.offset))));
    // A chunk sent again is written again (a retry after a lost answer).
    await files.uploads.chunk(page, id, 0, chunkOf(tif, 0));
    const info = await files.uploads.end(page, id, (f, n) => files.keep(f, n));
    expect(info).toMatchObject({ format: 'geotiff', name: 'Ortofoto', epsg: 25830, bytes: tif.length });
    expect(readFileSync(files.fileOf(info.file)!).equals(tif)).toBe(true);
    expect(readdirSync(files.dir).sort()).toEqual([`${info.file}.json`, `${info.file}.tif`].sort());
    expect(files.uploads.size).toBe(0);
    // Ended: gone.
    await expect(files.uploads.chunk(page, id, 0, chunkOf(tif, 0))).rejects.toMatchObject({ code: 'upload_gone' });
    await files.close();
  }, 60_000);

  it("refuses a chunk out of place and an end before every chunk; another page's calls find nothing", async () => {
    const files = new LayerFiles(mkdtempSync(join(dir, 'home-')));
    const [page, other] = [{}, {}];
    const id = await files.uploads.begin(page, 'x.tif', tif.length);
    await expect(files.uploads.chunk(page, id, 5, chunkOf(tif, 5))).rejects.toMatchObject({ code: 'invalid_arguments', message: expect.stringMatching(/multiple of 1048576/) });
    await expect(files.uploads.chunk(page, id, Math.ceil(tif.length / LAYER_CHUNK_BYTES) * LAYER_CHUNK_BYTES, 'AAAA')).rejects.toMatchObject({ code: 'invalid_arguments' });
    await expect(files.uploads.chunk(page, id, 0, 'AAAA')).rejects.toMatchObject({ code: 'invalid_arguments', message: expect.stringMatching(/holds 3 bytes where 1048576 were expected/) });
    await files.uploads.chunk(page, id, 0, chunkOf(tif, 0));
    const n = Math.ceil(tif.length / LAYER_CHUNK_BYTES);
    await expect(files.uploads.end(page, id, (f, name) => files.keep(f, name))).rejects.toMatchObject({ code: 'invalid_arguments', message: `${n - 1} of the file's ${n} chunks have not come: send them before the end` });
    // Another page: unknown there, whatever it tries; the upload goes on.
    await expect(files.uploads.chunk(other, id, LAYER_CHUNK_BYTES, chunkOf(tif, LAYER_CHUNK_BYTES))).rejects.toMatchObject({ code: 'upload_gone' });
    await expect(files.uploads.end(other, id, (f, n) => files.keep(f, n))).rejects.toMatchObject({ code: 'upload_gone' });
    await files.uploads.cancel(other, id);
    await files.uploads.dropOwner(other);
    expect(files.uploads.size).toBe(1);
    // At most a few at once per page.
    const more = await Promise.all(Array.from({ length: UPLOADS_PER_OWNER - 1 }, () => files.uploads.begin(page, 'y.tif', 10)));
    await expect(files.uploads.begin(page, 'z.tif', 10)).rejects.toMatchObject({ code: 'busy' });
    expect(await files.uploads.begin(other, 'z.tif', 10)).toMatch(/^[0-9a-f]{32}$/);
    // The page gone: all of its uploads and their files.
    await files.uploads.dropOwner(page);
    expect(files.uploads.size).toBe(1);
    expect(readdirSync(files.dir).filter((f) => [id, ...more].some((m) => f.startsWith(m)))).toEqual([]);
    await files.close();
    expect(readdirSync(files.dir)).toEqual([]);
  }, 60_000);

  it('cancelled midway, or idle too long, leaves nothing', async () => {
    const files = new LayerFiles(mkdtempSync(join(dir, 'home-')));
    const page = {};
    const id = await files.uploads.begin(page, 'x.tif', tif.length);
    // Cancelled while a chunk is being written: that write ends first, then the file goes.
    const writing = files.uploads.chunk(page, id, LAYER_CHUNK_BYTES, chunkOf(tif, LAYER_CHUNK_BYTES));
    await files.uploads.cancel(page, id);
    await writing.catch(() => undefined);
    expect(readdirSync(files.dir)).toEqual([]);
    await expect(files.uploads.chunk(page, id, 0, chunkOf(tif, 0))).rejects.toMatchObject({ code: 'upload_gone' });
    await files.uploads.cancel(page, id); // gone already: nothing
    await files.close();

    let now = 0;
    const d = mkdtempSync(join(dir, 'idle-'));
    const uploads = new LayerUploads(d, 1000, () => now);
    const a = await uploads.begin(page, 'a.tif', 10);
    const b = await uploads.begin(page, 'b.tif', 10);
    now = 600;
    await uploads.chunk(page, b, 0, Buffer.alloc(10).toString('base64'));
    now = 1100;
    uploads.sweep();
    await expect.poll(() => readdirSync(d)).toEqual([`${b}.upload.part`]);
    await expect(uploads.chunk(page, a, 0, Buffer.alloc(10).toString('base64'))).rejects.toMatchObject({ code: 'upload_gone' });
    await uploads.close();
    expect(readdirSync(d)).toEqual([]);
  }, 60_000);

  it('refuses at the end a file the map cannot show, in words, keeping nothing', async () => {
    const files = new LayerFiles(mkdtempSync(join(dir, 'home-')));
    const page = {};
    const text = Buffer.from('not a map');
    const id = await files.uploads.begin(page, 'notes.txt', text.length);
    await files.uploads.chunk(page, id, 0, text.toString('base64'));
    await expect(files.uploads.end(page, id, (f, n) => files.keep(f, n))).rejects.toMatchObject({ code: 'unsupported_layer_file', message: expect.stringMatching(/^notes\.txt is not a file the map shows/) });
    expect(readdirSync(files.dir)).toEqual([]);
    await files.close();
  });

  it("takes chunks at offsets past 2^31 and 2^32 of a file over 4 GiB, each at its place (the file sparse), and the contract carries them; a file past the disk's free space is refused", async () => {
    // 4.5 GiB and a short last chunk: declared, never sent whole (only three chunks move; the rest is a hole).
    const size = 2 ** 32 + 2 ** 29 + 12_345;
    const chunks = uploadChunks(size);
    expect(chunks).toHaveLength(4097 + 512);
    expect(chunks[2048]).toEqual({ offset: 2 ** 31, length: LAYER_CHUNK_BYTES });
    expect(chunks[4096]).toEqual({ offset: 2 ** 32, length: LAYER_CHUNK_BYTES });
    expect(chunks.at(-1)).toEqual({ offset: 2 ** 32 + 2 ** 29, length: 12_345 });
    // The page's call as the host checks it: an offset past 2^32 is an integer like any other (no 32-bit field).
    const data = randomBytes(LAYER_CHUNK_BYTES).toString('base64');
    expect(Value.Check(LAYER_FILES_API.addLayerFileChunk.args, { upload: 'a'.repeat(32), offset: 2 ** 32 + 2 ** 29, data })).toBe(true);
    expect(Value.Check(LAYER_FILES_API.addLayerFileBegin.args, { name: 'Ortofoto.tif', size })).toBe(true);

    const files = new LayerFiles(mkdtempSync(join(dir, 'home-')), { free: () => 8 * 1024 ** 3 });
    files.checkRoom(size, 'Ortofoto.tif');
    const page = {};
    const id = await files.uploads.begin(page, 'Ortofoto.tif', size);
    const sent = new Map<number, Buffer>();
    for (const c of [chunks[2048]!, chunks[4096]!, chunks.at(-1)!]) {
      const bytes = randomBytes(c.length);
      sent.set(c.offset, bytes);
      await files.uploads.chunk(page, id, c.offset, bytes.toString('base64'));
    }
    // Out of place past 2^32, too short there, or at the end: refused.
    await expect(files.uploads.chunk(page, id, 2 ** 32 + 1, data)).rejects.toMatchObject({ code: 'invalid_arguments', message: expect.stringMatching(/multiple of 1048576 bytes below the file's size \(4831850553\), not at 4294967297$/) });
    await expect(files.uploads.chunk(page, id, 2 ** 32, 'AAAA')).rejects.toMatchObject({ message: 'The chunk at 4294967296 holds 3 bytes where 1048576 were expected' });
    await expect(files.uploads.chunk(page, id, size, 'AAAA')).rejects.toMatchObject({ code: 'invalid_arguments' });
    // Each where it belongs, read back at its offset; the file as long as declared, taking the disk only its chunks.
    const part = join(files.dir, `${id}.upload.part`);
    const fd = openSync(part, 'r');
    try {
      for (const [offset, bytes] of sent) {
        const back = Buffer.alloc(bytes.length);
        expect(readSync(fd, back, 0, back.length, offset)).toBe(bytes.length);
        expect(back.equals(bytes)).toBe(true);
      }
    } finally {
      closeSync(fd);
    }
    expect(statSync(part).size).toBe(size);
    expect(statSync(part).blocks * 512).toBeLessThan(64 * 1024 ** 2);
    await expect(files.uploads.end(page, id, (f, n) => files.keep(f, n))).rejects.toMatchObject({ message: `${chunks.length - 3} of the file's ${chunks.length} chunks have not come: send them before the end` });
    await files.uploads.cancel(page, id);
    expect(readdirSync(files.dir)).toEqual([]);
    await files.close();

    // The same file where the disk has less room than it and the margin the mirror needs: refused before any byte.
    const full = new LayerFiles(mkdtempSync(join(dir, 'home-')), { free: () => 4.6 * 1024 ** 3 });
    expect(() => full.checkRoom(size, 'Ortofoto.tif')).toThrow(expect.objectContaining({ code: 'disk_full', message: "Ortofoto.tif is 4.5 GB and the disk holding the app's data has 4.6 GB free: free some space first" }));
    await full.close();
  }, 60_000);
});
