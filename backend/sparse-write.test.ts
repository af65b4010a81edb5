// A file written with its chunks of zeros left as holes (backend/sparse-write.ts): read back byte for byte as it
// came, its length whole (a trailing hole too), taking the disk only its data's blocks; an existing file refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sparseWriteStream } from './sparse-write.ts';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-sparse-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MiB = 1024 * 1024;

describe('sparseWriteStream', () => {
  it('writes data where it came and leaves runs of zeros as holes, to the full length', async () => {
    const data = randomBytes(100_000);
    // Zeros inside a chunk with data are data; chunks wholly of zeros (1 MiB, 64 MiB, one larger than the check's
    // buffer) are holes, the last one at the end.
    const mixed = Buffer.concat([Buffer.alloc(10), randomBytes(10)]);
    const chunks = [Buffer.alloc(MiB), data, Buffer.alloc(64 * MiB), mixed, Buffer.alloc(3 * MiB + 5)];
    const file = join(dir, 'out.bin');
    await pipeline(Readable.from(chunks), sparseWriteStream(file));
    const back = readFileSync(file);
    expect(back.equals(Buffer.concat(chunks))).toBe(true);
    const st = statSync(file);
    expect(st.size).toBe(chunks.reduce((n, c) => n + c.length, 0));
    expect(st.mode & 0o777).toBe(0o600);
    expect(st.blocks * 512).toBeLessThan(4 * MiB);
  });

  it('refuses a file that exists, leaving it be', async () => {
    const file = join(dir, 'there.bin');
    writeFileSync(file, 'mine');
    await expect(pipeline(Readable.from([Buffer.from('x')]), sparseWriteStream(file))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });
});
