import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { decodeRange, splitArrayMember, splitStep, type SplitProgress } from './json-split.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

/** What the split claims: the body's parse, rebuilt from the pieces; or null when a piece does not parse. */
function rebuild(b: Uint8Array, key: string): { value: unknown } | null | 'refused' {
  const split = splitArrayMember(b, key);
  if (split === null) return 'refused';
  try {
    const envelope = JSON.parse(split.envelope) as Record<string, unknown>;
    envelope[key] = split.items.map(([s, e]) => JSON.parse(decodeRange(b, s, e)));
    return { value: envelope };
  } catch {
    return null;
  }
}

function parseWhole(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

describe('splitArrayMember', () => {
  it('splits a bulk-create body into its envelope and each parcel', () => {
    const body = ' {"farm": {"id": 3}, "parcels" : [ {"name":"a]\\"[,"} , [1, {"b": "}"}], "x", 2.5e3, null ] , "z":{"parcels":[9]}}\n';
    const split = splitArrayMember(bytes(body), 'parcels')!;
    expect(JSON.parse(split.envelope)).toEqual({ farm: { id: 3 }, parcels: [], z: { parcels: [9] } });
    expect(split.items.map(([s, e]) => JSON.parse(decodeRange(bytes(body), s, e)))).toEqual([{ name: 'a]"[,' }, [1, { b: '}' }], 'x', 2500, null]);
  });

  it('refuses what it cannot split exactly, so the caller parses the body whole', () => {
    for (const body of [
      '[1]', '"x"', '{}', '{"farm":1}', '{"parcels":{}}', '{"parcels":[1],"parcels":[2]}', '{"parc\\u0065ls":[1]}',
      '\uFEFF{"parcels":[1]}', '{"parcels":[1,,2]}', '{"parcels":[1,]}', '{"parcels":[1 2]}', '{"parcels":[1]} x', '{"parcels":[1]',
    ]) {
      expect(splitArrayMember(bytes(body), 'parcels'), body).toBeNull();
    }
  });

  it('keeps a byte-order mark inside a piece, where it makes the body invalid', () => {
    const body = bytes('{"parcels":[\uFEFF1]}');
    expect(rebuild(body, 'parcels')).toBeNull();
    expect(parseWhole('{"parcels":[\uFEFF1]}')).toBeNull();
  });

  // Any JSON value as the body, with parcels arrays of anything, then printed with random spacing, or mutated by
  // a byte (deleted, duplicated, or a structural character put in): whenever the split is made, the pieces say
  // exactly what JSON.parse of the whole says.
  // Top-level keys without escapes (a key with one is refused: it could spell "parcels").
  const key = fc.stringMatching(/^[a-zA-Z_ é]{0,6}$/);
  const parcelsBody = fc.record({
    before: fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    parcels: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }),
    after: fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    indent: fc.constantFrom(undefined, 0, 1, 2, '\t'),
  }).map(({ before, parcels, after, indent }) => {
    const b = { ...before };
    delete b.parcels;
    const a = { ...after };
    delete a.parcels;
    return JSON.stringify({ ...b, parcels, ...a }, null, indent);
  });
  const mutated = fc.tuple(parcelsBody, fc.nat(), fc.constantFrom('delete', 'double', ',', ']', '[', '"', '\\', '}', ' ', 'x')).map(([text, at, how]) => {
    const k = at % (text.length + 1);
    if (how === 'delete') return text.slice(0, k) + text.slice(k + 1);
    if (how === 'double') return text.slice(0, k) + text.slice(k, k + 1) + text.slice(k);
    return text.slice(0, k) + how + text.slice(k);
  });

  it('agrees with JSON.parse of the whole on valid bodies, and splits them', () => {
    fc.assert(fc.property(parcelsBody, (text) => {
      const r = rebuild(bytes(text), 'parcels');
      expect(r).not.toBe('refused');
      expect(r).toEqual(parseWhole(text));
    }), { numRuns: 2000 });
  });

  it('never accepts a body JSON.parse rejects, nor changes what it accepts', () => {
    fc.assert(fc.property(mutated, (text) => {
      const r = rebuild(bytes(text), 'parcels');
      if (r === 'refused') return;
      expect(r).toEqual(parseWhole(text));
    }), { numRuns: 5000 });
  });

  it('splits in steps exactly as in one go, whatever the step size', () => {
    fc.assert(fc.property(fc.oneof(parcelsBody, mutated), fc.integer({ min: 1, max: 64 }), (text, budget) => {
      const b = bytes(text);
      const items: [number, number][] = [];
      let progress: SplitProgress | undefined;
      let steps = 0;
      let result: unknown;
      for (;;) {
        const step = splitStep(b, 'parcels', progress, budget);
        steps++;
        if (step.kind === 'refused') { result = null; break; }
        if (step.kind === 'done') { result = { envelope: step.split.envelope, items: [...items, ...step.split.items] }; break; }
        expect(step.items.length).toBeGreaterThan(0);
        items.push(...step.items);
        progress = step.progress;
      }
      expect(result).toEqual(splitArrayMember(b, 'parcels'));
      expect(steps).toBeLessThanOrEqual(items.length + 1);
    }), { numRuns: 3000 });
  });
});
