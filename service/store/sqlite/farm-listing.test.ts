// GET /api/farms/{id}/parcels/ is streamed from one SQLite read snapshot, over real HTTP: the body is byte for byte what
// SQLite's one-string listing gave, a batch committed or a farm deleted mid-listing changes nothing in it, the gateway's
// timer never cuts a started stream into invalid JSON, and a client that stops reading or goes away releases the
// snapshot (which otherwise keeps the WAL from being checkpointed).
import { request, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  asAccount, newAccount, newFarm, newOrg, pointParcel, polygonParcel, sqliteOf, startHttpService, type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { validateParcels } from '../../../core/parcels/validate.ts';
import { insertParcels } from './parcels.ts';
import type { ServiceConfig } from '../../config.ts';
import { CHUNK_BYTES } from '../farm-listing.ts';
import { turn, until } from '../../../test/helpers/event-loop.ts';

let svc: TestService & { base: string };
let org: Org;
let acc: Account;
let h: Record<string, string>;

async function start(config: Partial<ServiceConfig> = {}): Promise<void> {
  svc = await startHttpService(config);
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  h = asAccount(org, acc);
}
afterEach(async () => {
  vi.useRealTimers();
  await svc?.close();
});

/** The listing as the service built it before it streamed: one SQLite string (the reference for the bytes). */
function oneStringListing(farmId: number): string {
  const feature = `'{"type":"Feature","id":' || p.id || ',"bbox":[' || CAST(p.minx AS TEXT) || ',' || CAST(p.miny AS TEXT) || ','
  || CAST(p.maxx AS TEXT) || ',' || CAST(p.maxy AS TEXT) || '],"geometry":' || p.geometry || ',"properties":{"key":"' || p.key
  || '","name":' || json_quote(p.name) || ',"farm":' || p.farm_id || ',"hectares":' || CAST(p.hectares AS TEXT) || ',"metadata":' || p.metadata
  || ',"source_type":"' || p.source_type || '","point":' || coalesce(p.point, 'null') || ',"center":[' || CAST((p.minx + p.maxx) / 2 AS TEXT)
  || ',' || CAST((p.miny + p.maxy) / 2 AS TEXT) || '],"created":"' || p.created || '","modified":"' || p.modified || '"}}'`;
  const r = sqliteOf(svc).prepare(`SELECT count(*) AS n, coalesce(group_concat(f, ','), '') AS features
    FROM (SELECT ${feature} AS f FROM parcels p WHERE p.farm_id = ? ORDER BY p.id)`).get(farmId) as { n: number; features: string };
  return `{"type":"FeatureCollection","features":[${r.features}],"count":${r.n},"next":null}`;
}

/** A farm of `n` polygons of 9,999 vertices (~0.4 MB of JSON each), inserted with the store's own insertParcels. */
function bigFarm(n: number): number {
  const ring: number[][] = [];
  for (let i = 0; i < 9_999; i++) {
    const a = (2 * Math.PI * i) / 9_999;
    ring.push([-4.78 + 0.004 * Math.cos(a), 37.88 + 0.003 * Math.sin(a)]);
  }
  ring.push(ring[0]!);
  const { parcels, problems } = validateParcels([{ name: 'Big', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } } }], { maxHectares: 1000 });
  expect(problems).toEqual([]);
  const t = new Date().toISOString();
  const db = sqliteOf(svc);
  const farmId = Number(db.prepare('INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES (?, ?, ?, ?, ?)').run(org.organization_id, acc.id, 'Big', t, t).lastInsertRowid);
  db.transaction(() => insertParcels(db, farmId, Array.from({ length: n }, () => parcels[0]!)))();
  return farmId;
}

/** Opens the listing over a raw socket and waits for the first bytes; the caller decides when to read on. */
function openListing(path: string): Promise<{ res: IncomingMessage; first: Buffer; rest(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.base}${path}`, { headers: h }, (res) => {
      res.once('data', (first: Buffer) => {
        res.pause();
        const chunks: Buffer[] = [first];
        const rest = () => new Promise<string>((done, fail) => {
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('end', () => done(Buffer.concat(chunks).toString('utf8')));
          res.once('error', fail);
          res.once('aborted', () => fail(new Error('aborted')));
          res.resume();
        });
        resolve({ res, first, rest });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A whole answer over HTTP (node's client: fetch's own timers would run on a test's fake clock). */
function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.base}${path}`, { headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
      res.once('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether a read snapshot still pins the WAL: a passive checkpoint cannot copy every frame back. */
function walPinned(): boolean {
  const db = sqliteOf(svc);
  db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('probe', ?)").run(String(Math.random()));
  const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  return r!.checkpointed < r!.log;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GET /api/farms/{id}/parcels/, streamed', () => {
  it('is byte for byte the one-string listing, for a small farm and one spanning many chunks, over HTTP and inject()', async () => {
    await start();
    const small = await newFarm(svc, org, acc, 'Small', [polygonParcel('quote " and ünïcödé 🌾', -4.1234567891, 37.98765, 120, { a: 1.5, b: true }), pointParcel('pt', 3.3333333, -4.7, 52.1)]);
    const empty = await newFarm(svc, org, acc, 'Empty');
    const many = await newFarm(svc, org, acc, 'Many');
    for (let b = 0; b < 8; b++) {
      const parcels = Array.from({ length: 50 }, (_, i) => polygonParcel(`p${b}-${i}`, -4.7 + i * 0.001, 37.9 + b * 0.001, 40 + i, { batch: b, i }));
      const res = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: h, payload: { farm: { id: many.id }, parcels } });
      expect(res.statusCode).toBe(201);
    }
    for (const farmId of [small.id, empty.id, many.id]) {
      const expected = oneStringListing(farmId);
      const wire = await fetch(`${svc.base}/api/farms/${farmId}/parcels/`, { headers: h });
      expect(wire.status).toBe(200);
      expect(wire.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await wire.text()).toBe(expected);
      expect((await svc.app.inject({ method: 'GET', url: `/api/farms/${farmId}/parcels/`, headers: h })).body).toBe(expected);
    }
    expect(oneStringListing(many.id).length).toBeGreaterThan(3 * CHUNK_BYTES);
    expect(oneStringListing(empty.id)).toBe('{"type":"FeatureCollection","features":[],"count":0,"next":null}');
    // HEAD answers without reading the farm, and another farm's listing is 404 before anything is streamed.
    expect((await fetch(`${svc.base}/api/farms/${many.id}/parcels/`, { method: 'HEAD', headers: h })).status).toBe(200);
    const stranger = await newAccount(svc, org);
    expect((await fetch(`${svc.base}/api/farms/${many.id}/parcels/`, { headers: asAccount(org, stranger) })).status).toBe(404);
  });

  it('is one snapshot: a batch committed, a parcel renamed and the farm deleted mid-listing leave it whole and as it was', async () => {
    await start();
    const farmId = bigFarm(40);
    const ids = (sqliteOf(svc).prepare('SELECT id FROM parcels WHERE farm_id = ? ORDER BY id').all(farmId) as { id: number }[]).map((r) => r.id);
    const listing = await openListing(`/api/farms/${farmId}/parcels/`);
    expect(listing.res.statusCode).toBe(200);
    expect(listing.res.headers['transfer-encoding']).toBe('chunked');
    const added = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: h, payload: { farm: { id: farmId }, parcels: [pointParcel('late', 1)] } });
    expect(added.statusCode).toBe(201);
    expect((await svc.app.inject({ method: 'PATCH', url: `/api/parcels/${ids[39]}/`, headers: h, payload: { name: 'renamed' } })).statusCode).toBe(200);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/farms/${farmId}/`, headers: h })).statusCode).toBe(204);
    // The listing is still reading its snapshot (15 MB do not fit in the socket buffers of a client that pauses).
    expect(walPinned()).toBe(true);
    const body = JSON.parse(await listing.rest()) as { features: { id: number; properties: { name: string } }[]; count: number; next: null };
    expect(body.count).toBe(40);
    expect(body.next).toBeNull();
    expect(body.features.map((f) => f.id)).toEqual(ids);
    expect(body.features.every((f) => f.properties.name === 'Big')).toBe(true);
    expect((await fetch(`${svc.base}/api/farms/${farmId}/parcels/`, { headers: h })).status).toBe(404);
  });

  it('the gateway never cuts a stream that has started: a slow reader past the time limit gets the whole valid body', async () => {
    await start({ gatewayTimeoutMs: 300, faults: true });
    const farmId = bigFarm(30);
    // The gateway's and the delay fault's timers run on a clock the test moves (the socket's stall timer does not).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const listing = await openListing(`/api/farms/${farmId}/parcels/`);
    expect(listing.res.statusCode).toBe(200);
    // Far past the limit with the stream paused: a gateway timer left running would fire here and cut it.
    await vi.advanceTimersByTimeAsync(1000);
    const body = JSON.parse(await listing.rest()) as { features: unknown[]; count: number };
    expect(body.count).toBe(30);
    expect(body.features).toHaveLength(30);
    // Before its first byte a listing still gets the gateway's 504 (the limit covers the start of the answer), and
    // the listing that would have followed opens no snapshot.
    const fault = await svc.app.inject({ method: 'POST', url: '/__faults__', payload: { match: 'GET /api/farms/*', mode: 'delay', ms: 600 } });
    expect(fault.statusCode).toBe(200);
    const late = get(`/api/farms/${farmId}/parcels/`);
    await until(() => vi.getTimerCount() === 2, 'the listing timed by the gateway and held by the delay');
    await vi.advanceTimersByTimeAsync(300);
    const answered = await late;
    expect(answered.status).toBe(504);
    expect(JSON.parse(answered.body)).toMatchObject({ code: 'gateway_timeout' });
    // The delay ends: the route runs after the 504, synchronously up to where it would open the snapshot.
    await vi.advanceTimersByTimeAsync(300);
    expect(vi.getTimerCount()).toBe(0);
    await turn();
    expect(walPinned()).toBe(false);
  });

  it('a client that stops reading is cut off after the stall limit, and one that goes away at once: both release the snapshot', async () => {
    await start({ stallTimeoutMs: 400 });
    const farmId = bigFarm(30);
    const stalled = await openListing(`/api/farms/${farmId}/parcels/`);
    expect(walPinned()).toBe(true);
    // The kernel keeps taking bytes for a while after the client stops reading; then nothing moves for 400 ms.
    for (let i = 0; i < 200 && walPinned(); i++) await sleep(50);
    expect(walPinned()).toBe(false);
    // What the client got is cut short, never a complete document.
    await expect(stalled.rest()).rejects.toThrow();

    const gone = await openListing(`/api/farms/${farmId}/parcels/`);
    expect(walPinned()).toBe(true);
    gone.res.destroy();
    for (let i = 0; i < 50 && walPinned(); i++) await sleep(20);
    expect(walPinned()).toBe(false);
  });
});
