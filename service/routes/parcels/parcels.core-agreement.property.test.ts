// Property test of POST /api/parcels/ against the client-side validator: for random and mutated batches,
// validateParcels in core/ reaches the same verdict as the server (valid in core ⇔ 201) and, when both refuse,
// names the same parcels. Generators, settings and the invariants are in parcels.property-helpers.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PARCEL_HECTARES, MAX_PARCELS_PER_REQUEST, validateParcels } from '../../../core/parcels/validate.ts';
import {
  LIMITED_HECTARES, TIMEOUT, acc, batchArb, envelope, farmId, fcOpts, limitedFarmId, other, postAndCheck, runs,
  useParcelPropertyService,
} from './parcels.property-helpers.ts';
import { applyAll, mutationArb } from './parcels.property-mutations.ts';

useParcelPropertyService();

describe('POST /api/parcels/ under random and mutated payloads', () => {
  it('agrees with validateParcels in core on every batch: valid in core ⇔ 201, with the same parcels named', async () => {
    let created = 0;
    let refused = 0;
    await fc.assert(fc.asyncProperty(batchArb, fc.array(mutationArb, { maxLength: 3 }), fc.boolean(), async (batch, mutations, limited) => {
      const parcels = applyAll(batch, mutations);
      const body = envelope(parcels, limited ? limitedFarmId : farmId);
      const maxHectares = limited ? LIMITED_HECTARES : DEFAULT_MAX_PARCEL_HECTARES;
      // The server sees the parsed JSON, not the in-memory value (-0, undefined and the like differ).
      const sent = JSON.parse(JSON.stringify(parcels)) as unknown;
      const problems = Array.isArray(sent) ? validateParcels(sent, { maxHectares }).problems : null;
      const validInCore = Array.isArray(sent) && sent.length >= 1 && sent.length <= MAX_PARCELS_PER_REQUEST && problems!.length === 0;
      const res = await postAndCheck(body, limited ? other : acc);
      expect(res.statusCode === 201, `core says ${validInCore ? 'valid' : JSON.stringify(problems?.slice(0, 3))}; server ${res.statusCode} ${res.body.slice(0, 500)}`).toBe(validInCore);
      if (res.statusCode === 201) created++;
      else refused++;
      if (Array.isArray(sent) && sent.length >= 1 && sent.length <= MAX_PARCELS_PER_REQUEST && problems!.length > 0) {
        expect(res.statusCode).toBe(400);
        const b = res.json() as { code: string; errors: { index: number }[] };
        expect(b.code).toBe('invalid_parcels');
        expect(new Set(b.errors.map((e) => e.index))).toEqual(new Set(problems!.map((p) => p.index)));
      }
    }), fcOpts(1500));
    // Both verdicts must actually occur, or the property says little.
    expect(created).toBeGreaterThan(runs(1500) / 10);
    expect(refused).toBeGreaterThan(runs(1500) / 10);
  }, TIMEOUT);
});
