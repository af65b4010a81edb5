// Property test of PATCH /api/parcels/{id}/: random and mutated patches on known, foreign and malformed ids.
// Whatever arrives, the service never answers 5xx, a refused patch leaves every row byte-identical, and an
// accepted one changes only the patched row. Generators and settings are in parcels.property-helpers.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storeCounts } from '../../../test/helpers/service.ts';
import {
  TIMEOUT, acc, checkErrorBody, fcOpts, headersFor, metadataArb, nameArb, otherParcelId, patchTargets,
  pointParcelArb, polygonParcelArb, rowOf, rowsOf, runs, svc, useParcelPropertyService, type Body, type Json,
} from './parcels.property-helpers.ts';
import { applyAll, mutationArb } from './parcels.property-mutations.ts';

useParcelPropertyService();

const geomArb = fc.oneof(polygonParcelArb, pointParcelArb).map((p) => p.geom as Json);
const patchArb = fc.record({ name: nameArb, metadata: metadataArb, geom: geomArb, id: fc.constant(0) }, { requiredKeys: [] });

describe('PATCH /api/parcels/{id}/ under random and mutated payloads', () => {
  it('never fails with 5xx, and a refused patch leaves the row byte-identical', async () => {
    const idArb = fc.oneof(
      { arbitrary: fc.constantFrom(...patchTargets.map(String)), weight: 12 },
      { arbitrary: fc.constantFrom(String(otherParcelId), '999999', '0', '-1', 'abc', '1.5', '1e8', '99999999999999999999', '%00'), weight: 1 },
    );
    const bodyArb = fc.oneof(
      { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((random) => ({ random })), weight: 1 },
      { arbitrary: fc.record({ patch: patchArb, mutations: fc.array(mutationArb, { maxLength: 3 }) }), weight: 4 },
    );
    let ok = 0;
    await fc.assert(fc.asyncProperty(idArb, bodyArb, async (idText, b) => {
      const id = Number(idText);
      let body: unknown;
      if ('random' in b) body = b.random;
      else {
        const patch: Body = { ...b.patch };
        if ('id' in patch) patch.id = id;
        body = applyAll(patch, b.mutations);
      }
      const known = Number.isSafeInteger(id) && id > 0 ? [id] : [];
      const rowsBefore = await rowsOf([...known, ...patchTargets, otherParcelId]);
      const countsBefore = await storeCounts(svc);
      const res = await svc.app.inject({ method: 'PATCH', url: `/api/parcels/${idText}/`, headers: headersFor(acc), payload: JSON.stringify(body) });
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(await storeCounts(svc)).toEqual(countsBefore);
      if (res.statusCode === 200) {
        ok++;
        expect(patchTargets).toContain(id);
        expect((res.json() as { id: number }).id).toBe(id);
        // Only the patched row may change.
        const rowsAfter = await Promise.all([...known, ...patchTargets, otherParcelId].map((x) => (x === id ? null : rowOf(x))));
        expect(rowsAfter).toEqual([...known, ...patchTargets, otherParcelId].map((x, i) => (x === id ? null : rowsBefore[i])));
      } else {
        expect(await rowsOf([...known, ...patchTargets, otherParcelId]), res.body).toEqual(rowsBefore);
        checkErrorBody(res, 1);
        const errors = (res.json() as { errors?: { index?: number }[] }).errors ?? [];
        for (const e of errors) if (e.index !== undefined) expect(e.index).toBe(0);
      }
    }), fcOpts(500));
    expect(ok).toBeGreaterThan(runs(500) / 20);
  }, TIMEOUT);
});
