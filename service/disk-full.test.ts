// The disk under the service's data fills up (a real tmpfs, filled by a file): writes are refused with 507
// insufficient_storage and Retry-After, nothing of them is written, reads go on, and once space is freed the next
// write succeeds without a restart. Before, a full disk was answered 500 internal_error, a status the OpenAPI
// document did not declare, which the sync engine took for an uncertain outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { asAccount, newAccount, newFarm, newOrg, polygonParcel, startService, type Account, type Org } from '../test/helpers/service.ts';
import { TEST_STORE } from '../test/helpers/store.ts';
import { createTestDatabase, type TestDatabase } from '../test/helpers/postgres.ts';
import { openPgStore } from './store/postgres/index.ts';
import { buildApp } from './app.ts';
import type { Store } from './store/store.ts';

/**
 * The service with its data on the mounted disk: SQLite's file in a folder there, or a PostgreSQL database whose
 * tablespace is there (its write-ahead log stays on the server's own disk: the tables' files are what fill up).
 */
async function serviceOn(mnt: string): Promise<{ app: FastifyInstance; store: Store; close(): Promise<void> }> {
  if (TEST_STORE === 'sqlite') return startService({}, { parent: mnt });
  execFileSync('chown', ['postgres', mnt]);
  const db: TestDatabase = await createTestDatabase({ location: mnt });
  const store = await openPgStore(db.url, { max: 4 });
  const app = await buildApp({ store, config: { dataDir: mnt, publicUrl: 'http://127.0.0.1:8080', embedUrl: 'http://127.0.0.1:8080/embed', gatewayTimeoutMs: 0, faults: false, validationWorkers: 0 } });
  return {
    app, store,
    async close() {
      await app.close();
      await store.close();
      await db.drop();
    },
  };
}

// Mounting takes root, which CI has (.ci/run).
describe.runIf(process.getuid?.() === 0)('a full disk under the service', () => {
  let mnt: string;
  let svc: Awaited<ReturnType<typeof serviceOn>>;
  let org: Org;
  let acc: Account;
  let farm: { id: number };
  const filler = () => join(mnt, 'filler');

  beforeAll(async () => {
    mnt = mkdtempSync(join(tmpdir(), 'furrow-full-'));
    // The PostgreSQL database starts as a copy of its template (PostGIS's tables): room for that, and a little more.
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TEST_STORE === 'sqlite' ? 8 : 48}m`, 'tmpfs', mnt]);
    svc = await serviceOn(mnt);
    org = await newOrg(svc);
    acc = await newAccount(svc, org);
    farm = await newFarm(svc, org, acc, 'Before the disk filled', [polygonParcel('first', -4.78, 37.88)]);
  });
  afterAll(async () => {
    await svc?.close().catch(() => undefined);
    if (mnt) {
      execFileSync('umount', ['-l', mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  /** Fills what is left of the disk. */
  function fill(): void {
    const s = statfsSync(mnt);
    try {
      writeFileSync(filler(), Buffer.alloc(Number(s.bavail) * Number(s.bsize)));
    } catch { /* whatever fitted is written: the disk is full */ }
  }

  // 50 parcels of 1,000 positions: about 2 MB of geometry, more than any space the database file or its WAL can reuse.
  const bigBatch = (tag: string) => Array.from({ length: 50 }, (_, i) => {
    const ring = Array.from({ length: 1000 }, (_, k) => {
      const a = (2 * Math.PI * k) / 1000;
      return [-4.7 + i * 0.01 + 0.002 * Math.cos(a), 37.8 + 0.002 * Math.sin(a)];
    });
    return { name: `${tag} ${i}`, metadata: {}, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] } } };
  });
  const post = (url: string, payload: unknown) => svc.app.inject({ method: 'POST', url, headers: { ...asAccount(org, acc), 'content-type': 'application/json' }, payload: payload as object });

  it('refuses writes with 507 and Retry-After, writes nothing, answers reads, and takes writes again once space is freed', async () => {
    fill();
    const counts = async () => {
      const farms = (await svc.app.inject({ method: 'GET', url: '/api/farms/', headers: asAccount(org, acc) })).json() as { id: number }[];
      const parcels = (await svc.app.inject({ method: 'GET', url: '/api/parcels/?limit=10000', headers: asAccount(org, acc) })).json() as { count: number };
      return { farms: farms.length, parcels: parcels.count };
    };
    const before = await counts();
    expect(before).toEqual({ farms: 1, parcels: 1 });
    for (const [url, payload] of [
      ['/api/parcels/', { farm: { id: farm.id }, parcels: bigBatch('full') }],
      ['/api/farms/', { farm: { name: 'While full' }, parcels: bigBatch('farm') }],
    ] as const) {
      const res = await post(url, payload);
      expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(507);
      expect(res.json()).toMatchObject({ code: 'insufficient_storage', message: expect.stringContaining('disk is full') });
      expect(res.headers['retry-after']).toBe('60');
    }
    expect(await counts()).toEqual(before);
    const list = await svc.app.inject({ method: 'GET', url: `/api/farms/${farm.id}/parcels/`, headers: asAccount(org, acc) });
    expect(list.statusCode).toBe(200);
    expect((list.json() as { features: unknown[] }).features).toHaveLength(1);

    rmSync(filler());
    const again = await post('/api/parcels/', { farm: { id: farm.id }, parcels: bigBatch('after') });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toHaveLength(50);
  });
});
