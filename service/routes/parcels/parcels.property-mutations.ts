// Mutations of valid parcel payloads for the property tests (parcels.*.property.test.ts): each one breaks a body
// the way a buggy or hostile client might (dropped or renamed keys, unclosed or self-crossing rings, NaN-like
// numbers, deep nesting, huge rings...), so that the invariants are checked against near-valid input too.
import fc from 'fast-check';
import { polygonParcel } from '../../../test/helpers/service.ts';
import { isObj, type Json } from './parcels.property-helpers.ts';

// ---------------------------------------------------------------- mutations

interface Slot { parent: Record<string, unknown> | unknown[]; key: string | number; value: unknown }

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
export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
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
export function circle(count: number): number[][] {
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

export function applyAll(root: unknown, mutations: readonly Mutation[]): unknown {
  const holder = { root: structuredClone(root) };
  for (const m of mutations) mutate(holder, m);
  return holder.root;
}
