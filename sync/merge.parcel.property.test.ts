// Property tests of the pure three-way merge of parcels (mergeParcel in sync/merge.ts): what a pull or a PATCH does
// with a local edit (mine) and a remote one (theirs) against the last pulled state (base).
// Generated states use the shapes the mirror really holds: metadata records of strings, numbers and booleans
// built like JSON.parse builds them (so keys such as '__proto__' or 'constructor' are ordinary own keys),
// and polygon and point geometries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ParcelState } from '../db/types.ts';
import type { Metadata, MetadataValue } from '../core/parcels/validate.ts';
import { mergeParcel } from './merge.ts';
import type { ParcelFeature } from '../core/schemas/parcels.ts';
import { listedParcelColumns, parcelColumns, parcelStateOfFeature } from './state.ts';
import { canon, opts, reorder, same } from './merge.test-helpers.ts';

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Metadata built from entries the way JSON.parse builds it: every key, '__proto__' included, is an own key. */
const meta = (entries: Iterable<readonly [string, MetadataValue]>): Metadata => Object.fromEntries(entries) as Metadata;
const entriesOf = (m: Metadata): [string, MetadataValue][] => Object.keys(m).map((k) => [k, m[k]!]);

// ---------------------------------------------------------------- generators

// Key shapes of the spec ('Supplier ID', region…), keys that collide with Object.prototype members, and any string.
const keyArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('Supplier ID', 'region', 'contract_year', 'crop_type', 'certification', 'irrigated', 'owner name') },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__') },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
);
// Values from a small pool too, so that two sides often pick the same value independently.
const valueArb: fc.Arbitrary<MetadataValue> = fc.oneof(
  fc.constantFrom<MetadataValue>('S-12', 'norte', 'sur', 2024, 2025, 0, true, false, ''),
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
);
const metadataArb = fc.uniqueArray(fc.tuple(keyArb, valueArb), { selector: (e) => e[0], maxLength: 7 }).map(meta);

const nameArb = fc.oneof(fc.constantFrom('North field', 'Olivar 3', 'Parcela A'), fc.string({ minLength: 1, maxLength: 20 }));

const lonArb = fc.double({ min: -179, max: 179, noNaN: true });
const latArb = fc.double({ min: -84, max: 84, noNaN: true });
const haArb = fc.double({ min: 0.01, max: 99, noNaN: true });

function squareAround(lon: number, lat: number, side: number): number[][][] {
  return [[[lon - side, lat - side], [lon + side, lat - side], [lon + side, lat + side], [lon - side, lat + side], [lon - side, lat - side]]];
}

type Geom = Pick<ParcelState, 'geometry' | 'source_type' | 'point' | 'hectares'>;
// A small pool of fixed geometries (sides edit to the same one by chance) and generated polygons and points.
const FIXED_GEOMS: Geom[] = [
  { geometry: { type: 'Polygon', coordinates: squareAround(-4.78, 37.88, 0.001) }, source_type: 'Polygon', point: null, hectares: 4.4 },
  { geometry: { type: 'Polygon', coordinates: squareAround(2.1, 41.4, 0.002) }, source_type: 'Polygon', point: null, hectares: 13.2 },
  { geometry: { type: 'Polygon', coordinates: squareAround(-4.78, 37.88, 0.0005) }, source_type: 'Point', point: [-4.78, 37.88], hectares: 1 },
];
const geomArb: fc.Arbitrary<Geom> = fc.oneof(
  fc.constantFrom(...FIXED_GEOMS),
  fc.tuple(lonArb, latArb, fc.double({ min: 0.0001, max: 0.01, noNaN: true }), haArb, fc.boolean()).map(([lon, lat, side, hectares, hole]): Geom => {
    const coordinates = squareAround(lon, lat, side);
    if (hole) coordinates.push(squareAround(lon, lat, side / 3)[0]!);
    return { geometry: { type: 'Polygon', coordinates }, source_type: 'Polygon', point: null, hectares };
  }),
  fc.tuple(lonArb, latArb, haArb).map(([lon, lat, hectares]): Geom => ({
    geometry: { type: 'Polygon', coordinates: squareAround(lon, lat, Math.sqrt(hectares) / 1000) }, source_type: 'Point', point: [lon, lat], hectares,
  })),
);

const parcelArb: fc.Arbitrary<ParcelState> = fc.tuple(nameArb, metadataArb, geomArb).map(([name, metadata, g]) => ({ name, metadata, ...g }));

/** What one side does to each metadata key of base, plus keys it adds. */
type KeyEdit = { kind: 'keep' } | { kind: 'delete' } | { kind: 'set'; value: MetadataValue };
const keyEditArb: fc.Arbitrary<KeyEdit> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<KeyEdit>({ kind: 'keep' }) },
  { weight: 1, arbitrary: fc.constant<KeyEdit>({ kind: 'delete' }) },
  { weight: 2, arbitrary: valueArb.map((value): KeyEdit => ({ kind: 'set', value })) },
);

function editedMetadataArb(base: Metadata): fc.Arbitrary<Metadata> {
  const keys = Object.keys(base);
  return fc.tuple(fc.array(keyEditArb, { minLength: keys.length, maxLength: keys.length }), metadataArb).map(([edits, added]) => {
    const out: [string, MetadataValue][] = [];
    keys.forEach((k, i) => {
      const e = edits[i]!;
      if (e.kind === 'keep') out.push([k, base[k]!]);
      else if (e.kind === 'set') out.push([k, e.value]);
    });
    for (const [k, v] of entriesOf(added)) if (!hasOwn(base, k)) out.push([k, v]);
    return meta(out);
  });
}

/** A local or remote edit of base: each part kept or changed, the metadata key by key. */
function editedArb(base: ParcelState): fc.Arbitrary<ParcelState> {
  return fc.tuple(fc.option(nameArb, { nil: undefined }), fc.option(geomArb, { nil: undefined }), fc.boolean(), editedMetadataArb(base.metadata))
    .map(([name, g, editMeta, metadata]) => ({
      ...base, ...(g ?? {}), name: name ?? base.name, metadata: editMeta ? metadata : base.metadata,
    }));
}

/** base, mine, theirs: mostly edits of base, sometimes unrelated states. */
const parcelTripleArb: fc.Arbitrary<[ParcelState, ParcelState, ParcelState]> = fc.oneof(
  { weight: 5, arbitrary: parcelArb.chain((b) => fc.tuple(fc.constant(b), editedArb(b), editedArb(b))) },
  { weight: 1, arbitrary: fc.tuple(parcelArb, parcelArb, parcelArb) },
);

const geomOf = (s: ParcelState) => ({ geometry: s.geometry, source_type: s.source_type, point: s.point, hectares: s.hectares });

/** The specification of the conflict set, written independently of merge.ts. */
function expectedParcelConflicts(b: ParcelState, m: ParcelState, t: ParcelState): string[] {
  const changedBoth = (x: unknown, y: unknown, z: unknown) => !same(x, y) && !same(x, z) && !same(y, z);
  // An absent key is a value of its own: 'deleted' differs from every string, number and boolean.
  const slot = (md: Metadata, k: string) => (hasOwn(md, k) ? { v: md[k] } : { absent: true });
  const out: string[] = [];
  if (changedBoth(b.name, m.name, t.name)) out.push('name');
  if (changedBoth(geomOf(b), geomOf(m), geomOf(t))) out.push('geometry');
  const keys = new Set([...Object.keys(b.metadata), ...Object.keys(m.metadata), ...Object.keys(t.metadata)]);
  for (const k of keys) if (changedBoth(slot(b.metadata, k), slot(m.metadata, k), slot(t.metadata, k))) out.push(`metadata.${k}`);
  return out.sort();
}

/** A merged parcel must be a valid state: metadata of own primitive values only. */
function expectValidMetadata(md: Metadata): void {
  for (const k of Object.keys(md)) expect(['string', 'number', 'boolean']).toContain(typeof md[k]);
  expect(Object.getPrototypeOf(md)).toBe(Object.prototype);
}

// ---------------------------------------------------------------- parcels

describe('mergeParcel', () => {
  it('identity: no edit on either side gives base back, without conflicts', () => {
    fc.assert(fc.property(parcelArb, (b) => {
      const r = mergeParcel(b, b, b);
      expect(r.conflicts).toEqual([]);
      expect(canon(r.merged)).toBe(canon(b));
    }), opts());
  });

  it('one-sided edits win: mine-only gives mine, theirs-only gives theirs', () => {
    fc.assert(fc.property(parcelArb.chain((b) => fc.tuple(fc.constant(b), editedArb(b))), ([b, e]) => {
      const mineOnly = mergeParcel(b, e, b);
      expect(mineOnly.conflicts).toEqual([]);
      expect(canon(mineOnly.merged)).toBe(canon(e));
      expectValidMetadata(mineOnly.merged.metadata);
      const theirsOnly = mergeParcel(b, b, e);
      expect(theirsOnly.conflicts).toEqual([]);
      expect(canon(theirsOnly.merged)).toBe(canon(e));
      expectValidMetadata(theirsOnly.merged.metadata);
    }), opts());
  });

  it('symmetry: swapping mine and theirs gives the same conflict set, and the same result when clean', () => {
    fc.assert(fc.property(parcelTripleArb, ([b, m, t]) => {
      const a = mergeParcel(b, m, t);
      const z = mergeParcel(b, t, m);
      expect([...z.conflicts].sort()).toEqual([...a.conflicts].sort());
      if (a.conflicts.length === 0) expect(canon(z.merged)).toBe(canon(a.merged));
    }), opts());
  });

  it('identical edits on both sides are never conflicts, and are the result', () => {
    fc.assert(fc.property(parcelTripleArb, ([b, m]) => {
      // The same edit arriving as a separately built object with its keys in another order.
      const r = mergeParcel(b, m, reorder(m));
      expect(r.conflicts).toEqual([]);
      expect(canon(r.merged)).toBe(canon(m));
    }), opts());
  });

  it('conflicts are exactly the fields and metadata keys changed differently on both sides', () => {
    fc.assert(fc.property(parcelTripleArb, ([b, m, t]) => {
      expect([...mergeParcel(b, m, t).conflicts].sort()).toEqual(expectedParcelConflicts(b, m, t));
    }), opts(500));
  });

  it('a clean merge takes every change of either side and keeps the rest of base; a conflict keeps mine', () => {
    fc.assert(fc.property(parcelTripleArb, ([b, m, t]) => {
      const { merged, conflicts } = mergeParcel(b, m, t);
      expectValidMetadata(merged.metadata);
      const pick = (x: unknown, y: unknown, z: unknown) => (same(x, y) ? z : y); // mine when mine changed, else theirs
      expect(same(merged.name, pick(b.name, m.name, t.name))).toBe(true);
      expect(same(geomOf(merged), pick(geomOf(b), geomOf(m), geomOf(t)))).toBe(true);
      const keys = new Set([...Object.keys(b.metadata), ...Object.keys(m.metadata), ...Object.keys(t.metadata)]);
      const slot = (md: Metadata, k: string) => (hasOwn(md, k) ? { v: md[k] } : null);
      for (const k of keys) {
        const want = pick(slot(b.metadata, k), slot(m.metadata, k), slot(t.metadata, k));
        expect(canon(slot(merged.metadata, k)), `metadata key ${JSON.stringify(k)}`).toBe(canon(want));
      }
      expect(Object.keys(merged.metadata).every((k) => keys.has(k))).toBe(true);
      if (conflicts.length) expect(conflicts.every((c) => c === 'name' || c === 'geometry' || c.startsWith('metadata.'))).toBe(true);
    }), opts(500));
  });

  it('non-overlapping metadata key edits always merge cleanly, with both edits present', () => {
    // Each key (of base, or new) is owned by one side at most; each side edits only the keys it owns.
    const arb = fc.tuple(parcelArb, metadataArb, metadataArb).chain(([b, addA, addB]) => {
      const keys = [...new Set([...Object.keys(b.metadata), ...Object.keys(addA), ...Object.keys(addB)])];
      return fc.tuple(fc.constant(b), fc.constant(keys), fc.array(fc.constantFrom<'mine' | 'theirs' | 'none'>('mine', 'theirs', 'none'), { minLength: keys.length, maxLength: keys.length }),
        fc.array(keyEditArb, { minLength: keys.length, maxLength: keys.length }));
    });
    fc.assert(fc.property(arb, ([b, keys, owners, edits]) => {
      const side = (who: 'mine' | 'theirs') => {
        const out: [string, MetadataValue][] = [];
        keys.forEach((k, i) => {
          const e = owners[i] === who ? edits[i]! : { kind: 'keep' as const };
          if (e.kind === 'set') out.push([k, e.value]);
          else if (e.kind === 'keep' && hasOwn(b.metadata, k)) out.push([k, b.metadata[k]!]);
        });
        return { ...b, metadata: meta(out) };
      };
      const m = side('mine');
      const t = side('theirs');
      const { merged, conflicts } = mergeParcel(b, m, t);
      expect(conflicts).toEqual([]);
      for (const k of keys) {
        const from = owners[keys.indexOf(k)] === 'theirs' ? t.metadata : m.metadata; // 'none': both equal base
        expect(hasOwn(merged.metadata, k), `key ${JSON.stringify(k)} present`).toBe(hasOwn(from, k));
        if (hasOwn(from, k)) expect(canon(merged.metadata[k])).toBe(canon(from[k]));
      }
      expectValidMetadata(merged.metadata);
    }), opts());
  });

  it('a key deleted on one side and untouched on the other is deleted', () => {
    const arb = parcelArb.filter((b) => Object.keys(b.metadata).length > 0).chain((b) =>
      fc.tuple(fc.constant(b), fc.constantFrom(...Object.keys(b.metadata)), editedArb(b)));
    fc.assert(fc.property(arb, ([b, k, other]) => {
      // The other side may edit anything else, but leaves k as it was in base.
      const untouched: ParcelState = { ...other, metadata: meta([...entriesOf(other.metadata).filter(([x]) => x !== k), [k, b.metadata[k]!]]) };
      const deleted: ParcelState = { ...b, metadata: meta(entriesOf(b.metadata).filter(([x]) => x !== k)) };
      for (const [m, t] of [[deleted, untouched], [untouched, deleted]] as const) {
        const r = mergeParcel(b, m, t);
        expect(hasOwn(r.merged.metadata, k), `key ${JSON.stringify(k)} deleted`).toBe(false);
        expect(r.conflicts).not.toContain(`metadata.${k}`);
        expectValidMetadata(r.merged.metadata);
      }
    }), opts());
  });

  it('idempotence: merging the result with itself against base gives the result', () => {
    fc.assert(fc.property(parcelTripleArb, ([b, m, t]) => {
      const { merged } = mergeParcel(b, m, t);
      const again = mergeParcel(b, merged, merged);
      expect(again.conflicts).toEqual([]);
      expect(canon(again.merged)).toBe(canon(merged));
      // And re-merging with the result on one side and the same input on the other changes nothing more.
      const once = mergeParcel(b, m, t);
      expect(canon(mergeParcel(b, once.merged, t).merged)).toBe(canon(once.merged));
    }), opts());
  });

  it('key order does not matter: reordering the keys of any input gives the same merge', () => {
    fc.assert(fc.property(parcelTripleArb, ([b, m, t]) => {
      const a = mergeParcel(b, m, t);
      const z = mergeParcel(reorder(b), reorder(m), reorder(t));
      expect([...z.conflicts].sort()).toEqual([...a.conflicts].sort());
      expect(canon(z.merged)).toBe(canon(a.merged));
    }), opts());
  });
});

describe('listedParcelColumns (a first pull\'s parcels, sync/pull.ts)', () => {
  it('are the columns parcelColumns makes of parcelStateOfFeature\'s state, for any listed parcel without a client reference', () => {
    fc.assert(fc.property(parcelArb, fc.integer({ min: 1 }), fc.boolean(), (s, id, withZ) => {
      // As the service lists it; a point may come with a third coordinate, which the state drops.
      const f = {
        type: 'Feature' as const, id, geometry: s.geometry,
        properties: { key: `k${id}`, name: s.name, farm: 1, hectares: s.hectares, metadata: JSON.parse(JSON.stringify(s.metadata)) as Metadata, source_type: s.source_type,
          point: s.point && withZ ? [...s.point, 12.5] : s.point, center: [0, 0], created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z' },
      } as unknown as ParcelFeature;
      expect(listedParcelColumns(f)).toStrictEqual(parcelColumns(parcelStateOfFeature(f).state));
    }), opts());
  });
});
