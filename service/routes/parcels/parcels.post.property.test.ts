// Property tests of POST /api/parcels/: thousands of random and mutated payloads, and hand-made pathological
// ones, against one app. Whatever arrives, the service never answers 5xx, a refusal never writes, and a 201
// writes exactly the batch. Generators, settings and the invariants are in parcels.property-helpers.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asAccount, polygonParcel, storeCounts } from '../../../test/helpers/service.ts';
import {
  TIMEOUT, acc, batchArb, checkErrorBody, envelope, farmId, fcOpts, headersFor, isObj, limitedFarmId, org, other,
  postAndCheck, svc, useParcelPropertyService, type Body,
} from './parcels.property-helpers.ts';
import { applyAll, circle, mutationArb } from './parcels.property-mutations.ts';

useParcelPropertyService();

describe('POST /api/parcels/ under random and mutated payloads', () => {
  it('never fails with 5xx and never writes on a refusal, for fully random JSON', async () => {
    const arb = fc.oneof(
      fc.jsonValue(),
      fc.record({ farm: fc.jsonValue({ maxDepth: 2 }), parcels: fc.jsonValue({ maxDepth: 4 }) }, { requiredKeys: [] }),
      fc.record({ farm: fc.oneof(fc.constant({ id: 1 }), fc.record({ id: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] })), parcels: fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 60 }) }),
    );
    // The random farm ids must sometimes hit the real farm.
    await fc.assert(fc.asyncProperty(arb, fc.boolean(), async (body, useFarm) => {
      const hit = useFarm && isObj(body) && isObj(body.farm) && 'id' in body.farm;
      await postAndCheck(hit ? { ...(body as Body), farm: { ...(body.farm as Body), id: farmId } } : body);
    }), fcOpts(500));
  }, TIMEOUT);

  it('keeps the invariants for mutations of valid batches, envelope included', async () => {
    await fc.assert(fc.asyncProperty(batchArb, fc.array(mutationArb, { maxLength: 4 }), fc.boolean(), async (batch, mutations, limited) => {
      const body = applyAll(envelope(batch, limited ? limitedFarmId : farmId), mutations);
      await postAndCheck(body, limited ? other : acc);
    }), fcOpts(1500));
  }, TIMEOUT);

  it('handles hand-made pathological bodies without 5xx or writes', async () => {
    const valid = JSON.stringify(polygonParcel('ok'));
    const raw: string[] = [
      `{"farm":{"id":${farmId}},"parcels":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`,
      `{"farm":{"id":${farmId}},"parcels":[${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}]}`,
      `{"farm":{"id":${farmId}},"parcels":[{"name":"x","geom":{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[1e999,0],[1,0],[1,1],[1e999,0]]]}}}]}`,
      `{"farm":{"id":${farmId}},"parcels":[{"name":"x","geom":{"type":"Feature","properties":{"metadata":{"hectares":1e999}},"geometry":{"type":"Point","coordinates":[1,2]}}}]}`,
      `{"farm":{"id":${farmId}},"parcels":[${valid}],"parcels":[]}`,
      `{"farm":{"id":1e400},"parcels":[${valid}]}`,
      `{"farm":{"id":${farmId}},"parcels":[{"name":"x","metadata":{"__proto__":{"polluted":1}},"geom":${JSON.stringify(polygonParcel('g').geom)}}]}`,
      `{"farm":{"id":${farmId}},"parcels":[{"name":"x","metadata":{"constructor":{"prototype":{"polluted":1}}},"geom":${JSON.stringify(polygonParcel('g').geom)}}]}`,
      `{"farm":{"id":${farmId}},"parcels":[${valid}]`,
      '',
      'null',
      '"a string"',
      `[{"farm":{"id":${farmId}},"parcels":[${valid}]}]`,
      `{"farm":{"id":${farmId}},"parcels":[${Array.from({ length: 51 }, () => valid).join(',')}]}`,
    ];
    const ringOf = (count: number) => JSON.stringify({ name: `ring of ${count}`, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [circle(count)] } } });
    raw.push(`{"farm":{"id":${farmId}},"parcels":[${valid},${ringOf(10_001)}]}`);
    raw.push(`{"farm":{"id":${farmId}},"parcels":[${Array.from({ length: 10 }, () => ringOf(10_001)).join(',')}]}`);
    for (const payload of raw) {
      const before = await storeCounts(svc);
      const res = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: headersFor(acc), payload });
      expect(res.statusCode, `${payload.slice(0, 80)} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
      expect(res.statusCode).not.toBe(201);
      expect(await storeCounts(svc)).toEqual(before);
      let parsed: unknown = null;
      try { parsed = JSON.parse(payload); } catch { /* not JSON */ }
      if (res.statusCode !== 200) checkErrorBody(res, isObj(parsed) && Array.isArray(parsed.parcels) ? parsed.parcels.length : null);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Not JSON at all.
    for (const [ct, payload] of [['text/plain', 'hello'], ['application/x-www-form-urlencoded', 'farm=1'], ['application/json; charset=latin1', '{}']] as const) {
      const before = await storeCounts(svc);
      const res = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: { ...asAccount(org, acc), 'content-type': ct }, payload });
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(await storeCounts(svc)).toEqual(before);
    }
  }, TIMEOUT);
});
