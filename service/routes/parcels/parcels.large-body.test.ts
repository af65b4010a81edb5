// Bodies of RAW_BODY_BYTES or more on the routes that take parcels are not parsed on arrival: the validation
// pool parses them, one parcel per job, off the request thread. They must be answered exactly as the same JSON in
// a small body is, a body that is not JSON first of all; and 50 parcels at the vertex cap must fit.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  asAccount, newAccount, newFarm, newOrg, polygonParcel, startService, storeCounts,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { MAX_POSITIONS_PER_PARCEL } from '../../../core/parcels/validate.ts';
import { seededRandom } from '../../../core/random.ts';
import { RAW_BODY_BYTES } from '../../raw-body.ts';
import { ValidationPool } from '../../validation-pool.ts';
import { checkParcelPatch, patchParcel } from '../../store/parcels.ts';
import type { Scope } from '../../store/scope.ts';
import { batchArb } from './parcels.property-helpers.ts';
import { applyAll, mutationArb } from './parcels.property-mutations.ts';

interface Setup { svc: TestService; org: Org; acc: Account; farmId: number; h: Record<string, string> }

async function setUp(validationWorkers: number, validator?: ValidationPool): Promise<Setup> {
  const svc = await startService({ validationWorkers }, { validator });
  const org = await newOrg(svc);
  const acc = await newAccount(svc, org);
  const farmId = (await newFarm(svc, org, acc, 'Large bodies')).id;
  return { svc, org, acc, farmId, h: { ...asAccount(org, acc), 'content-type': 'application/json' } };
}

const PAD = ' '.repeat(RAW_BODY_BYTES);

/** The same JSON text past the raw threshold: whitespace before the body and between its parcels. */
function padded(body: unknown): string {
  const b = body as { parcels?: unknown };
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && Array.isArray(b.parcels)) {
    const rest = JSON.stringify({ ...body, parcels: 0 });
    const items = b.parcels.map((p) => JSON.stringify(p) ?? 'null').join(`${PAD.slice(0, 1000)},\n `);
    return PAD + rest.replace('"parcels":0', `"parcels": [ ${items} ]`);
  }
  return PAD + JSON.stringify(body);
}

/** A response with what differs between two creations of the same parcels (ids, keys, times) blanked. */
function comparable(res: LightMyRequestResponse): unknown {
  const v = res.json() as unknown;
  if (res.statusCode !== 201) return v;
  const strip = (f: { id?: unknown; properties: Record<string, unknown> }) => ({ ...f, id: 0, properties: { ...f.properties, farm: 0, key: '', created: '', modified: '' } });
  return Array.isArray(v) ? v.map(strip) : { ...(v as object), id: 0, created: '', modified: '', parcels: ((v as { parcels: [] }).parcels).map(strip) };
}

/** A parcel at the vertex cap: a dense ~45 ha outline, coordinates at full double precision. */
function capParcel(name: string, seed: number, lon: number, lat: number) {
  const next = seededRandom(seed);
  const n = MAX_POSITIONS_PER_PARCEL - 1;
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * (i + 0.5 * next())) / n;
    ring.push([lon + 0.0048 * Math.cos(a), lat + 0.0034 * Math.sin(a)]);
  }
  ring.push([...ring[0]!]);
  return { name, metadata: { 'Supplier ID': `S-${seed}` }, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } } };
}
const capBatch = (tag: string) => Array.from({ length: 50 }, (_, i) => capParcel(`${tag} ${i}`, i + 1, -5 + (i % 10) * 0.02, 38 + Math.floor(i / 10) * 0.02));

describe.each([0, 2])('large bodies, %i validation workers', (workers) => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(workers);
  });
  afterAll(async () => {
    await s.svc.close();
  });
  const post = (url: string, payload: string) => s.svc.app.inject({ method: 'POST', url, headers: s.h, payload });

  it('answers a batch padded past the threshold exactly as the same JSON unpadded', async () => {
    await fc.assert(fc.asyncProperty(batchArb, fc.array(mutationArb, { maxLength: 2 }), async (batch, mutations) => {
      const body = { farm: { id: s.farmId }, parcels: applyAll(batch, mutations) };
      const small = await post('/api/parcels/', JSON.stringify(body));
      const large = await post('/api/parcels/', padded(body));
      expect(large.statusCode, large.body.slice(0, 300)).toBe(small.statusCode);
      expect(comparable(large)).toEqual(comparable(small));
    }), { numRuns: workers ? 25 : 60, seed: 20_251_124 });
  }, 120_000);

  it('answers a farm padded past the threshold exactly as the same JSON unpadded', async () => {
    await fc.assert(fc.asyncProperty(batchArb, fc.array(mutationArb, { maxLength: 2 }), async (batch, mutations) => {
      const body = { farm: { name: 'Padded' }, parcels: applyAll(batch, mutations) };
      const small = await post('/api/farms/', JSON.stringify(body));
      const large = await post('/api/farms/', padded(body));
      expect(large.statusCode, large.body.slice(0, 300)).toBe(small.statusCode);
      expect(comparable(large)).toEqual(comparable(small));
    }), { numRuns: workers ? 15 : 30, seed: 20_251_124 });
  }, 120_000);

  it('answers a body that is not JSON as such before anything else', async () => {
    const before = await storeCounts(s.svc);
    const broken = (farm: string) => `${PAD}{${farm}"parcels":[${JSON.stringify(polygonParcel('ok'))}, {"name":"x","geom":tru}]}`;
    const cases: [string, string, string][] = [
      ['POST', '/api/parcels/', broken('"farm":{"id":99999999},')], // an unknown farm would be 404
      ['POST', '/api/parcels/', broken('')], // no farm id would be 200 'Missing Farm ID'
      ['POST', '/api/parcels/', broken('"farm":{"id":1},"extra":1,')], // an unknown field would be validation_failed
      ['POST', '/api/farms/', broken('"farm":{"name":""},')],
      ['PATCH', '/api/parcels/99999999/', `${PAD}{"name":"x","geom":tru}`],
      ['PATCH', '/api/parcels/abc/', `${PAD}{"name":"x","geom":tru}`],
    ];
    for (const [method, url, payload] of cases) {
      const res = await s.svc.app.inject({ method: method as 'POST', url, headers: s.h, payload });
      expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 200)}`).toBe(400);
      expect((res.json() as { code: string }).code).toBe('malformed_json');
    }
    expect(await storeCounts(s.svc)).toEqual(before);
  });

  it('patches a parcel with a geometry padded past the threshold as with the same JSON unpadded', async () => {
    const created = await post('/api/parcels/', JSON.stringify({ farm: { id: s.farmId }, parcels: [polygonParcel('to patch'), polygonParcel('twin')] }));
    const [a, b] = created.json() as { id: number }[];
    const geom = capParcel('x', 7, -4.7, 37.9).geom;
    const small = await s.svc.app.inject({ method: 'PATCH', url: `/api/parcels/${a!.id}/`, headers: s.h, payload: JSON.stringify({ name: 'patched', geom }) });
    const large = await s.svc.app.inject({ method: 'PATCH', url: `/api/parcels/${b!.id}/`, headers: s.h, payload: PAD + JSON.stringify({ name: 'patched', geom }) });
    expect(small.statusCode, small.body.slice(0, 300)).toBe(200);
    expect(large.statusCode, large.body.slice(0, 300)).toBe(200);
    const strip = (r: LightMyRequestResponse) => ({ ...(r.json() as object), id: 0, properties: { ...(r.json() as { properties: object }).properties, key: '', created: '', modified: '' } });
    expect(strip(large)).toEqual(strip(small));
    const twisted = structuredClone(geom);
    const ring = twisted.geometry.coordinates[0]!;
    [ring[10], ring[11]] = [ring[11]!, ring[10]!];
    const bad = await s.svc.app.inject({ method: 'PATCH', url: `/api/parcels/${b!.id}/`, headers: s.h, payload: PAD + JSON.stringify({ geom: twisted }) });
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { errors: { code: string }[] }).errors.map((e) => e.code)).toEqual(['self_intersection']);
  });
});

/**
 * Holds the results of the pool's parcel validations (not the steps splitting a body) until released. `reached`
 * is 'held' once a worker has validated parcels of the request: it is then mid-validation, on whatever machine;
 * 'answered' if the request was answered first (its parcels were not validated on a worker).
 */
function holdValidation(pool: ValidationPool, request: Promise<unknown>): { reached: Promise<'held' | 'answered'>; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((r) => { release = r; });
  let held!: () => void;
  const first = new Promise<'held'>((r) => { held = () => r('held'); });
  pool.onWorkerResult = (job) => {
    if (job.kind !== 'objects' && job.kind !== 'slices') return;
    held();
    return released;
  };
  return {
    reached: Promise.race([first, request.then(() => 'answered' as const)]),
    release() {
      pool.onWorkerResult = null;
      release();
    },
  };
}

describe('50 parcels at the vertex cap', () => {
  let s: Setup;
  const pool = new ValidationPool(2);
  beforeAll(async () => {
    s = await setUp(2, pool);
  });
  afterAll(async () => {
    await s.svc.close();
    await pool.close();
  });

  it('fit in the body limit and are created, in one bulk create or with their farm', async () => {
    const parcels = capBatch('Cap');
    const body = JSON.stringify({ farm: { id: s.farmId }, parcels });
    expect(body.length).toBeGreaterThan(15 * 2 ** 20);
    const res = await s.svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: s.h, payload: body });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    expect(res.json()).toHaveLength(50);
    const farm = await s.svc.app.inject({ method: 'POST', url: '/api/farms/', headers: s.h, payload: JSON.stringify({ farm: { name: 'Cap farm' }, parcels }) });
    expect(farm.statusCode, farm.body.slice(0, 300)).toBe(201);
    expect((farm.json() as { parcel_count: number }).parcel_count).toBe(50);
  }, 120_000);

  it('are validated off the request thread: other requests are answered meanwhile', async () => {
    const payload = JSON.stringify({ farm: { name: 'Heavy farm' }, parcels: capBatch('Heavy') });
    const order: string[] = [];
    const heavy = s.svc.app.inject({ method: 'POST', url: '/api/farms/', headers: s.h, payload }).then((r) => { order.push('farm'); return r; });
    const hold = holdValidation(pool, heavy);
    // The farm's parcels have been validated on a worker and their results are held: the farm request cannot be
    // answered before the list, however fast the machine.
    expect(await hold.reached).toBe('held');
    const list = await s.svc.app.inject({ method: 'GET', url: '/api/farms/', headers: s.h });
    order.push('list');
    expect(list.statusCode).toBe(200);
    hold.release();
    expect((await heavy).statusCode).toBe(201);
    expect(order).toEqual(['list', 'farm']);
  }, 120_000);

  it('does not write a patch whose parcel was deleted while its geometry was being validated', async () => {
    const created = await s.svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: s.h, payload: JSON.stringify({ farm: { id: s.farmId }, parcels: [polygonParcel('going')] }) });
    const id = (created.json() as { id: number }[])[0]!.id;
    const scope: Scope = { organizationId: s.org.organization_id, accountId: s.acc.id, via: 'api_key' };
    const body = { geom: capParcel('g', 3, -4.7, 37.9).geom };
    const pool = new ValidationPool(1);
    try {
      // The steps of the PATCH route, with the parcel deleted between the validation on the pool and the write.
      const checked = await checkParcelPatch(s.svc.store, scope, id, body, pool);
      expect(checked?.problems).toEqual([]);
      const before = await storeCounts(s.svc);
      await s.svc.store.parcels.delete(scope, id);
      await expect(patchParcel(s.svc.store, scope, id, body, checked)).rejects.toThrow(expect.objectContaining({ status: 404 }));
      await expect(s.svc.store.parcels.get(scope, id)).rejects.toThrow(expect.objectContaining({ status: 404 }));
      expect((await storeCounts(s.svc)).parcels).toBe(before.parcels! - 1);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('does not create a farm for an account deactivated while its parcels were being validated', async () => {
    const acc2 = await newAccount(s.svc, s.org);
    const h2 = { ...asAccount(s.org, acc2), 'content-type': 'application/json' };
    const before = await storeCounts(s.svc);
    const creating = s.svc.app.inject({ method: 'POST', url: '/api/farms/', headers: h2, payload: JSON.stringify({ farm: { name: 'Late' }, parcels: capBatch('Late').slice(0, 10) }) });
    const hold = holdValidation(pool, creating);
    // The account is deleted while the request's parcels are on the pool, past the checks made before validating.
    expect(await hold.reached).toBe('held');
    const gone = await s.svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc2.id}/`, headers: { 'x-api-key': s.org.api_key } });
    expect(gone.statusCode).toBe(204);
    hold.release();
    const res = await creating;
    expect(res.statusCode, res.body.slice(0, 200)).toBe(403);
    expect(await storeCounts(s.svc)).toEqual(before);
  }, 60_000);
});
