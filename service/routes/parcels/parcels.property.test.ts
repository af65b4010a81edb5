// Property tests of the two parcel write paths: thousands of random and mutated payloads against one app.
// Whatever arrives, the service never answers 5xx, a refusal never writes, a 201 writes exactly the batch,
// and the client-side validator in core/ reaches the same verdict as the server.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  asAccount, newAccount, newFarm, newOrg, pointParcel, polygonParcel, startService, storeCounts, square,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { DEFAULT_MAX_PARCEL_HECTARES, MAX_PARCELS_PER_REQUEST, validateParcels } from '../../../core/parcels/validate.ts';
import { setParcelLimit } from '../../store/accounts.ts';

const LONG = process.env.CI_LONG === '1';
const runs = (n: number) => (LONG ? n * 10 : n);
// A fixed seed keeps the default run reproducible; FC_SEED replays a reported failure; the long run explores.
const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : LONG ? undefined : 20_250_611;
const fcOpts = (numRuns: number): fc.Parameters<unknown> => ({ numRuns: runs(numRuns), ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: false });
const LIMITED_HECTARES = 2;
// Generous: a property that overruns keeps running in the background and would disturb the next one's counts.
const TIMEOUT = LONG ? 1_800_000 : 180_000;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Body = Record<string, unknown>;

// ---------------------------------------------------------------- generators of valid input

const nameArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }),
).filter((s) => s.trim() !== '');

const metaValueArb = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
);
const metadataArb = fc.dictionary(fc.string({ minLength: 1, maxLength: 16 }), metaValueArb, { maxKeys: 5 });

const lonArb = fc.double({ min: -179, max: 179, noNaN: true });
const latArb = fc.double({ min: -84, max: 84, noNaN: true });

/** A closed square ring (about 81 ha at most), sometimes with a hole in its middle. */
const polygonCoordsArb = fc.tuple(lonArb, latArb, fc.integer({ min: 5, max: 900 }), fc.boolean()).map(([lon, lat, side, hole]) => {
  const rings = square(lon, lat, side);
  if (hole) rings.push(square(lon, lat, side / 3)[0]!);
  return rings;
});

const polygonParcelArb = fc.tuple(nameArb, fc.option(metadataArb, { nil: undefined }), polygonCoordsArb).map(([name, metadata, coordinates]) => {
  const p: Body = { name, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } } };
  if (metadata !== undefined) p.metadata = metadata;
  return p;
});

const pointParcelArb = fc.tuple(nameArb, fc.option(metadataArb, { nil: undefined }), lonArb, latArb, fc.double({ min: 0.01, max: 99, noNaN: true }))
  .map(([name, metadata, lon, lat, hectares]) => {
    const p = pointParcel(name, hectares, lon, lat) as Body;
    if (metadata !== undefined) p.metadata = metadata;
    return p;
  });

const parcelArb = fc.oneof({ arbitrary: polygonParcelArb, weight: 3 }, { arbitrary: pointParcelArb, weight: 1 });
const batchArb = fc.array(parcelArb, { minLength: 1, maxLength: MAX_PARCELS_PER_REQUEST });

// ---------------------------------------------------------------- mutations

interface Slot { parent: Record<string, unknown> | unknown[]; key: string | number; value: unknown }

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const isNumArray = (v: unknown): v is number[] => Array.isArray(v) && v.length >= 2 && v.length <= 3 && v.every((x) => typeof x === 'number');
const isRing = (v: unknown): v is number[][] => Array.isArray(v) && v.length >= 4 && v.every(isNumArray);

/** Every slot (parent + key) below the root, depth first. */
function slots(root: unknown): Slot[] {
  const out: Slot[] = [];
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      node.forEach((value: unknown, key) => { out.push({ parent: node, key, value }); stack.push(value); });
    } else if (isObj(node)) {
      for (const [key, value] of Object.entries(node)) { out.push({ parent: node, key, value }); stack.push(value); }
    }
  }
  return out;
}
const setSlot = (s: Slot, v: unknown) => { (s.parent as Record<string | number, unknown>)[s.key] = v; };

const MUTATIONS = [
  'drop', 'rename', 'replace', 'unclose', 'nanish', 'huge', 'swapLonLat', 'emptyString', 'deep', 'resize',
  'pointNoHectares', 'nestedMetadata', 'extraKey', 'bigPolygon', 'bowtie', 'degenerate', 'dupPosition', 'manyPositions', 'dropPosition',
] as const;
type MutationKind = (typeof MUTATIONS)[number];

interface Mutation { kind: MutationKind; pick: number; n: number; str: string; value: Json; weird: unknown }

const weirdArb = fc.constantFrom<unknown>(
  'NaN', 'Infinity', '-Infinity', '1e999', '', ' 12', '0x1F', '12abc', '٣', null, true, [], {}, -0,
  1e308, -1e308, 5e-324, 2 ** 53 + 2, -(2 ** 63), 1e21, 181, -181, 91, -91, 0, -1,
);
const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  // A 10,000-position ring costs ~50 ms a request: rare here, and certain in the hand-made bodies below.
  kind: fc.oneof(
    { arbitrary: fc.constantFrom(...MUTATIONS.filter((k) => k !== 'manyPositions')), weight: 300 },
    { arbitrary: fc.constant<MutationKind>('manyPositions'), weight: 1 },
  ),
  pick: fc.nat(),
  n: fc.nat({ max: 60 }),
  str: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', 'id', 'name', 'geom', 'metadata', 'farm', 'parcels', 'type', 'hectares', '__proto__', 'constructor')),
  value: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  weird: weirdArb,
});

/** A closed circle of `count` positions (first repeated last) of about 400 m across. */
function circle(count: number): number[][] {
  const ring: number[][] = [];
  for (let i = 0; i < count - 1; i++) {
    const a = (2 * Math.PI * i) / (count - 1);
    ring.push([10 + 0.002 * Math.cos(a), 45 + 0.002 * Math.sin(a)]);
  }
  ring.push(ring[0]!.slice());
  return ring;
}

function pickOf<T>(items: T[], pick: number): T | undefined {
  return items.length ? items[pick % items.length] : undefined;
}

function nest(depth: number, inner: unknown, objects: boolean): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = objects ? { a: v } : [v];
  return v;
}

/** Applies one mutation in place to the value in holder.root (which it may replace). */
function mutate(holder: { root: unknown }, m: Mutation): void {
  const all = slots(holder);
  const objSlots = all.filter((s) => isObj(s.parent) && s.parent !== holder);
  const parcels = (() => {
    const r = holder.root;
    if (Array.isArray(r)) return r;
    if (isObj(r) && Array.isArray(r.parcels)) return r.parcels;
    return null;
  })();
  const parcelObjs = (parcels ?? []).filter(isObj);
  switch (m.kind) {
    case 'drop': {
      const s = pickOf(objSlots, m.pick);
      if (s) delete (s.parent as Record<string, unknown>)[s.key as string];
      return;
    }
    case 'rename': {
      const s = pickOf(objSlots, m.pick);
      if (!s || s.key === m.str) return;
      const parent = s.parent as Record<string, unknown>;
      delete parent[s.key as string];
      Object.defineProperty(parent, m.str, { value: s.value, enumerable: true, writable: true, configurable: true });
      return;
    }
    case 'replace': {
      const s = pickOf(all, m.pick);
      if (s) setSlot(s, m.value);
      return;
    }
    case 'unclose': {
      const ring = pickOf(all.map((s) => s.value).filter(isRing), m.pick);
      if (ring) ring[ring.length - 1] = [ring[0]![0]! + 1e-4 * (1 + (m.n % 5)), ring[0]![1]!];
      return;
    }
    case 'nanish':
    case 'huge': {
      const s = pickOf(all.filter((x) => typeof x.value === 'number'), m.pick);
      if (s) setSlot(s, m.weird);
      return;
    }
    case 'swapLonLat': {
      const pos = pickOf(all.map((s) => s.value).filter(isNumArray), m.pick);
      if (pos) [pos[0], pos[1]] = [pos[1]!, pos[0]!];
      else {
        // Swap every position of one ring: [lat, lon] order throughout, as a confused client sends it.
        const ring = pickOf(all.map((s) => s.value).filter(isRing), m.pick);
        ring?.forEach((p) => { [p[0], p[1]] = [p[1]!, p[0]!]; });
      }
      return;
    }
    case 'emptyString': {
      const s = pickOf(all.filter((x) => typeof x.value === 'string'), m.pick);
      if (s) setSlot(s, m.n % 2 ? '' : '   ');
      return;
    }
    case 'deep': {
      const s = pickOf(all, m.pick);
      if (s) setSlot(s, nest(50 + m.n * 15, m.value, m.pick % 2 === 0));
      return;
    }
    case 'resize': {
      if (!parcels) return;
      const src = parcels.slice();
      parcels.length = 0;
      for (let i = 0; i < m.n && src.length; i++) parcels.push(structuredClone(src[i % src.length]));
      return;
    }
    case 'pointNoHectares': {
      const p = pickOf(parcelObjs, m.pick);
      if (!p) return;
      const variants: unknown[] = [{}, { metadata: {} }, { metadata: { hectares: m.weird } }, { metadata: { hectare: 5 } }, null, undefined];
      const properties = variants[m.n % variants.length];
      p.geom = { type: 'Feature', properties, geometry: { type: 'Point', coordinates: [-4.78, 37.88] } };
      return;
    }
    case 'nestedMetadata': {
      const p = pickOf(parcelObjs, m.pick);
      if (!p) return;
      const meta = isObj(p.metadata) ? p.metadata : (p.metadata = {});
      (meta as Record<string, unknown>)[m.str || 'k'] = m.n % 2 ? { nested: m.value } : [m.value];
      return;
    }
    case 'extraKey': {
      const targets = [holder.root, ...all.map((s) => s.value)].filter(isObj);
      const t = pickOf(targets, m.pick);
      if (t) Object.defineProperty(t, m.str || 'extra', { value: m.value, enumerable: true, writable: true, configurable: true });
      return;
    }
    case 'bigPolygon': {
      const p = pickOf(parcelObjs, m.pick);
      if (p) p.geom = polygonParcel('x', 10, 45, 1_000 + m.n * 500).geom; // 1 km² (100 ha) up to 31 km per side
      return;
    }
    case 'bowtie': {
      const ring = pickOf(all.map((s) => s.value).filter(isRing), m.pick);
      if (ring && ring.length >= 5) [ring[1], ring[2]] = [ring[2]!, ring[1]!];
      return;
    }
    case 'degenerate': {
      const ring = pickOf(all.map((s) => s.value).filter(isRing), m.pick);
      if (ring) {
        const first = ring[0]!.slice();
        // Either all positions equal, or all on one line: no area either way.
        ring.forEach((p, i) => { p[0] = first[0]! + (m.n % 2 ? 0 : i * 1e-4 * (i === ring.length - 1 ? 0 : 1)); p[1] = first[1]!; });
      }
      return;
    }
    case 'dupPosition': {
      const ring = pickOf(all.map((s) => s.value).filter(isRing), m.pick);
      if (ring) { const i = m.n % (ring.length - 1); ring.splice(i, 0, ring[i]!.slice()); }
      return;
    }
    case 'manyPositions': {
      const s = pickOf(all.filter((x) => isRing(x.value)), m.pick);
      if (!s) return;
      setSlot(s, circle(m.n % 2 ? 10_001 : 10_000));
      return;
    }
    case 'dropPosition': {
      const ring = pickOf(all.map((s) => s.value).filter((v): v is unknown[] => Array.isArray(v) && v.length > 0 && v.every(Array.isArray)), m.pick);
      ring?.splice(m.n % ring.length, 1);
      return;
    }
  }
}

function applyAll(root: unknown, mutations: readonly Mutation[]): unknown {
  const holder = { root: structuredClone(root) };
  for (const m of mutations) mutate(holder, m);
  return holder.root;
}

// ---------------------------------------------------------------- the service under test

let svc: TestService;
let org: Org;
let acc: Account;
let other: Account;
let farmId = 0;
let limitedFarmId = 0;
let otherParcelId = 0;
let patchTargets: number[] = [];

beforeAll(async () => {
  svc = await startService();
  org = newOrg(svc);
  acc = await newAccount(svc, org);
  other = await newAccount(svc, org);
  setParcelLimit(svc.db, other.id, LIMITED_HECTARES);
  const seeded = await newFarm(svc, org, acc, 'Property farm', [
    polygonParcel('seed polygon', -4.78, 37.88, 200, { crop_type: 'olive', 'Supplier ID': 'S-1' }),
    pointParcel('seed point', 3, -4.7, 37.9),
    polygonParcel('seed 3', 2.35, 48.85, 300),
  ]);
  farmId = seeded.id;
  patchTargets = seeded.parcels.map((p) => p.id);
  const limited = await newFarm(svc, org, other, 'Limited farm', [polygonParcel('other account', 10, 45, 100)]);
  limitedFarmId = limited.id;
  otherParcelId = limited.parcels[0]!.id;
});

afterAll(async () => {
  await svc?.close();
});

const headersFor = (a: Account) => ({ ...asAccount(org, a), 'content-type': 'application/json' });

function post(body: unknown, as: Account = acc): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: headersFor(as), payload: JSON.stringify(body) });
}

function rowOf(id: number): string {
  const p = svc.db.prepare('SELECT * FROM parcels WHERE id = ?').get(id);
  const r = svc.db.prepare('SELECT * FROM parcels_rtree WHERE id = ?').get(id);
  return JSON.stringify([p, r]);
}

/** The shape every error answer has: code, message, detail and well-formed errors. */
function checkErrorBody(res: LightMyRequestResponse, batchLength: number | null): void {
  const b = res.json() as Record<string, unknown>;
  expect(typeof b.code, res.body).toBe('string');
  expect(typeof b.message, res.body).toBe('string');
  expect(b.detail, res.body).toBe(b.message);
  if (b.errors !== undefined) {
    expect(Array.isArray(b.errors), res.body).toBe(true);
    for (const e of b.errors as Record<string, unknown>[]) {
      expect(typeof e.path, res.body).toBe('string');
      expect(typeof e.code, res.body).toBe('string');
      expect(typeof e.message, res.body).toBe('string');
    }
  }
  if (b.code === 'invalid_parcels') {
    expect(batchLength, res.body).not.toBeNull();
    const errors = b.errors as { index: unknown; path: string }[];
    expect(errors.length, res.body).toBeGreaterThan(0);
    for (const e of errors) {
      expect(Number.isInteger(e.index), res.body).toBe(true);
      const i = e.index as number;
      expect(i >= 0 && i < batchLength!, res.body).toBe(true);
      expect(e.path === `parcels/${i}` || e.path.startsWith(`parcels/${i}/`), res.body).toBe(true);
    }
  }
}

/** POSTs a body and checks the invariants that hold whatever the body is; returns the answer. */
async function postAndCheck(body: unknown, as: Account = acc): Promise<LightMyRequestResponse> {
  const before = storeCounts(svc.db);
  const res = await post(body, as);
  const after = storeCounts(svc.db);
  expect(res.statusCode, res.body).toBeLessThan(500);
  const parcels = isObj(body) && Array.isArray(body.parcels) ? body.parcels : null;
  if (res.statusCode === 201) {
    expect(parcels).not.toBeNull();
    const created = res.json() as { id: number; properties: { name: string } }[];
    expect(created).toHaveLength(parcels!.length);
    expect(after).toEqual({ ...before, parcels: before.parcels! + parcels!.length, parcels_rtree: before.parcels_rtree! + parcels!.length });
    created.forEach((f, i) => expect(f.properties.name).toBe(((parcels![i] as Body).name as string).trim()));
  } else {
    expect(after, res.body).toEqual(before);
    if (res.statusCode === 200) expect(res.json()).toEqual({ message: 'Missing Farm ID' });
    else checkErrorBody(res, parcels?.length ?? null);
  }
  return res;
}

// ---------------------------------------------------------------- POST /api/parcels/

const envelope = (parcels: unknown, id: number = farmId): Body => ({ farm: { id }, parcels });

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
      const before = storeCounts(svc.db);
      const res = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: headersFor(acc), payload });
      expect(res.statusCode, `${payload.slice(0, 80)} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
      expect(res.statusCode).not.toBe(201);
      expect(storeCounts(svc.db)).toEqual(before);
      let parsed: unknown = null;
      try { parsed = JSON.parse(payload); } catch { /* not JSON */ }
      if (res.statusCode !== 200) checkErrorBody(res, isObj(parsed) && Array.isArray(parsed.parcels) ? parsed.parcels.length : null);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Not JSON at all.
    for (const [ct, payload] of [['text/plain', 'hello'], ['application/x-www-form-urlencoded', 'farm=1'], ['application/json; charset=latin1', '{}']] as const) {
      const before = storeCounts(svc.db);
      const res = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: { ...asAccount(org, acc), 'content-type': ct }, payload });
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(storeCounts(svc.db)).toEqual(before);
    }
  }, TIMEOUT);
});

// ---------------------------------------------------------------- PATCH /api/parcels/{id}/

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
      const rowsBefore = [...known, ...patchTargets, otherParcelId].map(rowOf);
      const countsBefore = storeCounts(svc.db);
      const res = await svc.app.inject({ method: 'PATCH', url: `/api/parcels/${idText}/`, headers: headersFor(acc), payload: JSON.stringify(body) });
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(storeCounts(svc.db)).toEqual(countsBefore);
      if (res.statusCode === 200) {
        ok++;
        expect(patchTargets).toContain(id);
        expect((res.json() as { id: number }).id).toBe(id);
        // Only the patched row may change.
        const rowsAfter = [...known, ...patchTargets, otherParcelId].map((x) => (x === id ? null : rowOf(x)));
        expect(rowsAfter).toEqual([...known, ...patchTargets, otherParcelId].map((x, i) => (x === id ? null : rowsBefore[i])));
      } else {
        expect([...known, ...patchTargets, otherParcelId].map(rowOf), res.body).toEqual(rowsBefore);
        checkErrorBody(res, 1);
        const errors = (res.json() as { errors?: { index?: number }[] }).errors ?? [];
        for (const e of errors) if (e.index !== undefined) expect(e.index).toBe(0);
      }
    }), fcOpts(500));
    expect(ok).toBeGreaterThan(runs(500) / 20);
  }, TIMEOUT);
});
