// The host's registry of byte resources (backend/bytes.ts) on its own: a resource is found by its session's key, id
// and name only, for its time; a session keeps its newest few; closing a session or the registry removes its files;
// a new registry empties what an earlier host left. (bytes-server.test.ts serves it over HTTP from a real host.)
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBytesPath } from '../core/bytes-protocol.ts';
import { ByteResources, closeBytes, READERS_PER_SESSION, readRange, type ByteSession } from './bytes.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-bytes-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function made(s: ByteSession, name = 'x.csv', text = 'a,b\r\n') {
  const file = s.file('csv');
  writeFileSync(file, text, { mode: 0o600 });
  return { file, ...s.add({ file, name, type: 'text/csv; charset=utf-8' }) };
}

describe('ByteResources', () => {
  it("opens a resource by its session's key, id and name, until it expires", async () => {
    let now = 1000;
    const r = new ByteResources(join(dir, 'a'), { ttlMs: 100, now: () => now });
    const s = r.session();
    const { path, size, file } = made(s, 'Finca Ñ.csv');
    expect(size).toBe(5);
    const p = parseBytesPath(path)!;
    expect(p.key).toBe(s.key);
    const opened = await r.open(p);
    expect(opened?.meta).toMatchObject({ size: 5, type: 'text/csv; charset=utf-8', fileName: 'Finca Ñ.csv', download: true });
    await opened?.handle?.close();
    expect(await r.open({ ...p, name: 'other.csv' })).toBeNull();
    expect(await r.open({ ...p, key: r.session().key })).toBeNull();
    now += 100;
    expect(await r.open(p)).toBeNull();
    expect(existsSync(file)).toBe(false);
    r.close();
  });

  it('keeps the newest resources of a session, refuses types it does not serve, and removes a closed session\'s files', async () => {
    const r = new ByteResources(join(dir, 'b'), { perSession: 2 });
    const s = r.session();
    const [one, two, three] = [made(s, '1.csv'), made(s, '2.csv'), made(s, '3.csv')];
    expect(await r.open(parseBytesPath(one.path)!)).toBeNull();
    expect(existsSync(one.file)).toBe(false);
    const f = s.file('html');
    writeFileSync(f, '<script>alert(1)</script>');
    expect(() => s.add({ file: f, name: 'x.html', type: 'text/html' })).toThrow(/not served/);
    expect(() => s.add({ file: f, name: '../x', type: 'text/csv; charset=utf-8' })).toThrow(/not a file name/);
    expect(() => s.file('../x')).toThrow();
    s.close();
    expect([existsSync(two.file), existsSync(three.file)]).toEqual([false, false]);
    expect(await r.open(parseBytesPath(two.path)!)).toBeNull();
    // A session that ended while its file was being written: refused, the file removed.
    const late = s.file('csv');
    writeFileSync(late, 'x');
    expect(() => s.add({ file: late, name: 'late.csv', type: 'text/csv; charset=utf-8' })).toThrow(/gone/);
    expect(existsSync(late)).toBe(false);
    r.close();
    expect(existsSync(join(dir, 'b'))).toBe(false);
  });

  it('empties the folder an earlier host left, and makes it private', () => {
    const folder = join(dir, 'c');
    mkdirSync(folder, { mode: 0o755 });
    writeFileSync(join(folder, 'left-over.geojson'), '{}');
    const r = new ByteResources(folder);
    expect(readdirSync(folder)).toEqual([]);
    if (process.platform !== 'win32') expect(statSync(folder).mode & 0o777).toBe(0o700);
    r.close();
  });

  it("serves a layer's kept file past the exports' time, the same id for the same owner, while the host keeps it and the session lasts", async () => {
    let now = 1000;
    const r = new ByteResources(join(dir, 'd'), { ttlMs: 100, perSession: 2, now: () => now });
    const s = r.session();
    const kept = join(dir, 'layer.pmtiles');
    writeFileSync(kept, 'PMTiles');
    let at: string | null = kept;
    const f = { name: 'layer.pmtiles', type: 'application/vnd.pmtiles', path: () => at };
    const path = s.addKeptFile('file:a', f);
    expect(s.addKeptFile('file:a', f)).toBe(path);
    expect(() => s.addKeptFile('file:b', { ...f, type: 'text/html' })).toThrow(/not served/);
    // Exports come and go (two at most, for their time): the kept file stays.
    for (let i = 0; i < 3; i++) made(s, `${i}.csv`);
    now += 10_000;
    const got = await r.open(parseBytesPath(path)!);
    expect(got?.meta).toMatchObject({ size: 7, type: 'application/vnd.pmtiles', fileName: 'layer.pmtiles', download: false });
    expect(readRange(got!.fd!, 0, 6).toString()).toBe('PMTiles');
    await closeBytes(got);
    expect(await r.open({ ...parseBytesPath(path)!, name: 'other.pmtiles' })).toBeNull();
    // No longer kept by the host (removed): none.
    at = null;
    expect(await r.open(parseBytesPath(path)!)).toBeNull();
    at = kept;
    // At most READERS_PER_SESSION readers and kept files: the oldest go.
    for (let i = 0; i < READERS_PER_SESSION; i++) s.addReader(`r${i}`, () => null);
    expect(await r.open(parseBytesPath(path)!)).toBeNull();
    const again = s.addKeptFile('file:a', f);
    expect(again).not.toBe(path);
    s.close();
    expect(await r.open(parseBytesPath(again)!)).toBeNull();
    expect(() => s.addKeptFile('file:c', f)).toThrow(/gone/);
    expect(existsSync(kept)).toBe(true);
    r.close();
  });
});
