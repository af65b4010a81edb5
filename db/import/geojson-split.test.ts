// The byte-level split of a FeatureCollection must agree with JSON.parse on every feature, and count a feature
// as one parcel input only when its conversion gives exactly one; anything it is unsure of goes to the whole parse.
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { splitFeatureCollection, splitFeatureFile, splitFeaturesFrom, UNKNOWN, type SplitCollection, type TailStarter } from './geojson-split.ts';
import { toParcelInputs } from './convert.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array, from: number, to: number) => new TextDecoder().decode(b.subarray(from, to));

// Features of every shape the importer meets, and of some it must not be fooled by.
const text = fc.string({ unit: fc.constantFrom('a', 'é', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', '🌾') });
const json = fc.jsonValue({ maxDepth: 3 });
const ring = fc.array(fc.tuple(fc.double({ min: -180, max: 180, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true })), { minLength: 0, maxLength: 5 });
const geometry = fc.oneof(
  fc.record({ type: fc.constantFrom('Polygon', 'Point', 'MultiPolygon', 'LineString', 'GeometryCollection', 'PolygESCAPEDU006fn'), coordinates: fc.oneof(fc.array(fc.array(ring, { maxLength: 2 }), { maxLength: 3 }), json) }, { requiredKeys: [] }),
  json,
);
const feature = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constantFrom('Feature', 'feature', 'FeatESCAPEDU0075re'), properties: fc.dictionary(text, json, { maxKeys: 4 }), geometry, id: json }, { requiredKeys: ['type'] }) },
  { weight: 1, arbitrary: json },
);
const spacing = fc.constantFrom('', ' ', '\n', '\r\n\t ');

/** JSON.stringify with whitespace between tokens, and sometimes a key repeated (JSON.parse keeps the last). */
function write(value: unknown, ws: string): string {
  if (Array.isArray(value)) return `[${ws}${value.map((v) => write(v, ws)).join(`${ws},${ws}`)}${ws}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${ws}${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}${ws}:${ws}${write(v, ws)}`).join(`${ws},${ws}`)}${ws}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
// An escape written into the source as it stands ("Feat\u0075re" is "Feature" to JSON.parse, not to the bytes).
const unescapeFixture = (s: string) => s.replace(/ESCAPEDU/g, '\\u');

describe('splitFeatureCollection', () => {
  it('finds every feature as JSON.parse does, and counts one input only where conversion gives exactly one', () => {
    fc.assert(fc.property(fc.array(feature, { maxLength: 6 }), spacing, fc.boolean(), (features, ws, furrow) => {
      const members = [`"type"${ws}:${ws}"FeatureCollection"`, `"features"${ws}:${ws}${write(features, ws)}`];
      if (furrow) members.unshift(`"furrow":{"format":"furrow-parcels","version":1}`, `"crs":null`);
      const source = unescapeFixture(`${ws}{${ws}${members.join(`${ws},${ws}`)}${ws}}${ws}`);
      const b = bytes(source);
      const split = splitFeatureCollection(b);
      const parsed = (JSON.parse(source) as { features: unknown[] }).features;
      if (parsed.length === 0) {
        expect(split).toBeNull();
        return;
      }
      expect(split).not.toBeNull();
      expect(split!.starts).toHaveLength(parsed.length);
      expect(split!.members['furrow'] !== undefined).toBe(furrow);
      parsed.forEach((f, i) => {
        expect(JSON.parse(decode(b, split!.starts[i]!, split!.ends[i]!))).toEqual(f);
        if (split!.inputs[i] !== UNKNOWN) expect(toParcelInputs([f], { farmName: 'F', furrowExport: false }).inputs).toHaveLength(split!.inputs[i]!);
        const [from, to] = [split!.polygons[2 * i]!, split!.polygons[2 * i + 1]!];
        if (from >= 0) {
          const g = (f as { type: string; geometry: { type: string; coordinates: unknown } });
          expect([g.type, g.geometry.type]).toEqual(['Feature', 'Polygon']);
          expect(JSON.parse(decode(b, from, to))).toEqual(g.geometry.coordinates);
        }
      });
    }), { numRuns: 500 });
  });

  it('counts plain Polygon, Point and one-part MultiPolygon features, and leaves the rest to conversion', () => {
    const f = (geometry: unknown, extra = {}) => ({ type: 'Feature', properties: { name: 'x' }, geometry, ...extra });
    const split = splitFeatureCollection(bytes(JSON.stringify({ type: 'FeatureCollection', features: [
      f({ type: 'Polygon', coordinates: [] }), f({ type: 'Point', coordinates: [1, 2] }), f({ type: 'MultiPolygon', coordinates: [[]] }),
      f({ type: 'MultiPolygon', coordinates: [[], []] }), f({ type: 'MultiPolygon', coordinates: [] }), f({ type: 'LineString', coordinates: [] }),
      f(null), { type: 'Feature', properties: {} }, [1], f({ type: 'Polygon' }, { type: 'Featur' }),
    ] })));
    expect(Array.from(split!.inputs)).toEqual([1, 1, 1, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]);
  });

  it('reads repeated keys as JSON.parse does (the last one wins), and distrusts escaped ones', () => {
    const raw = [
      '{"type":"Point","type":"Feature","geometry":{"type":"LineString"},"geometry":{"type":"Polygon","coordinates":[]}}',
      '{"type":"Feature","type":"Point","geometry":{"type":"Polygon"}}',
      '{"type":"Feature","geometry":{"type":"Polygon"},"geometry":null}',
      '{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[],[]],"coordinates":[[]]}}',
      '{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[]],"coordinates":[[],[]]}}',
      '{"type":"Feature","geometry":{"type":"Polygon","typ\\u0065":"LineString"}}',
      '{"type":"Feature","geometry":{"type":"Polygon"},"ge\\u006fmetry":null}',
    ];
    const split = splitFeatureCollection(bytes(`{"type":"FeatureCollection","features":[${raw.join(',')}]}`))!;
    expect(Array.from(split.inputs)).toEqual([1, UNKNOWN, UNKNOWN, 1, UNKNOWN, UNKNOWN, UNKNOWN]);
    // Only the first is certainly a Polygon Feature, and its coordinates are the later ones.
    expect(Array.from(split.polygons).map((x) => x >= 0)).toEqual([true, true, ...Array(12).fill(false)]);
    const source = `{"type":"FeatureCollection","features":[${raw.join(',')}]}`;
    expect(source.slice(split.polygons[0], split.polygons[1])).toBe('[]');
    raw.forEach((r, i) => {
      if (split.inputs[i] !== UNKNOWN) expect(toParcelInputs([JSON.parse(r)], { farmName: 'F', furrowExport: false }).inputs).toHaveLength(split.inputs[i]!);
    });
  });

  it('leaves anything but a plain FeatureCollection, and anything broken, to the whole parse', () => {
    const polygon = '{"type":"Feature","geometry":{"type":"Polygon","coordinates":[]}}';
    for (const source of [
      polygon, '{"type":"Polygon","coordinates":[]}', '[]', '', '{}', `{"type":"FeatureCollection","features":[]}`,
      `{"type":"FeatureCollection","features":[${polygon}],"features":[${polygon}]}`,
      `{"type":"FeatureCollection","feat\\u0075res":[],"features":[${polygon}]}`,
      `{"type":"Topology","features":[${polygon}]}`, `{"features":[${polygon}]}`,
      `{"type":"FeatureCollection","features":[${polygon},]}`, `{"type":"FeatureCollection","features":[${polygon} ${polygon}]}`,
      `{"type":"FeatureCollection","features":[${polygon}]} x`, `{"type":"FeatureCollection","features":[${polygon}`,
      `{"type":"FeatureCollection","features":[${polygon}],"crs":{"type":"name",}}`, `{"type":"FeatureCollection" "features":[${polygon}]}`,
      `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":"}]}`,
    ]) expect(splitFeatureCollection(bytes(source)), source).toBeNull();
  });

  it('starts after a byte-order mark when told to, and hands back the other members parsed', () => {
    const source = `\uFEFF{"crs":{"type":"name","properties":{"name":"EPSG:4326"}},"type":"FeatureCollection","features":[{"type":"Feature"}]}`;
    const split = splitFeatureCollection(bytes(source), 3);
    expect(split!.members).toEqual({ crs: { type: 'name', properties: { name: 'EPSG:4326' } }, type: 'FeatureCollection' });
    expect(split!.starts).toHaveLength(1);
  });
});

describe('splitFeatureFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-split-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The file split through a window of `window` bytes (the smallest is 16). */
  const splitFile = (b: Uint8Array, window: number, from = 0) => {
    const path = join(dir, 'f.geojson');
    writeFileSync(path, b);
    const fd = openSync(path, 'r');
    try {
      return splitFeatureFile(fd, b.length, from, window);
    } finally {
      closeSync(fd);
    }
  };
  const plain = (s: SplitCollection | null) => s && {
    starts: Array.from(s.starts), ends: Array.from(s.ends), inputs: Array.from(s.inputs), polygons: Array.from(s.polygons), members: s.members,
  };

  it('splits through a small moving window exactly as it splits the bytes in memory, at every window size', () => {
    fc.assert(fc.property(fc.array(feature, { maxLength: 6 }), spacing, fc.integer({ min: 16, max: 300 }), (features, ws, window) => {
      const source = unescapeFixture(`{${ws}"crs":null,"type"${ws}:${ws}"FeatureCollection",${ws}"features"${ws}:${ws}${write(features, ws)},"bbox":[1,2,3,4]${ws}}${ws}`);
      const b = bytes(source);
      const inMemory = splitFeatureCollection(b);
      const streamed = splitFile(b, window);
      expect(plain(streamed)).toEqual(plain(inMemory));
      if (streamed) expect(streamed.utf8).toBe(true);
    }), { numRuns: 300 });
  });

  it('leaves the same broken files to the whole parse', () => {
    const polygon = '{"type":"Feature","geometry":{"type":"Polygon","coordinates":[]}}';
    for (const source of [
      '', `{"type":"FeatureCollection","features":[${polygon}]} x`, `{"type":"FeatureCollection","features":[${polygon}`,
      `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":"}]}`, `{"type":"FeatureCollection","features":[${polygon},1`,
    ]) expect(splitFile(bytes(source), 16), source).toBeNull();
  });

  it('tells whether every byte is UTF-8, whichever window boundary a character straddles', () => {
    const f = (name: string) => `{"type":"Feature","properties":{"name":"${name}"},"geometry":{"type":"Point","coordinates":[1,2]}}`;
    const good = bytes(`{"type":"FeatureCollection","features":[${f('Viña 🌾 Cañada')},${f('Quiñón')}]}`);
    for (let window = 16; window < 64; window++) expect(splitFile(good, window)!.utf8, `window ${window}`).toBe(true);
    // A Latin-1 "ñ" (0xF1, then an ASCII byte): not UTF-8, wherever it falls.
    const bad = Uint8Array.from([...bytes(`{"type":"FeatureCollection","features":[${f('Vi')}`), ...bytes(`,${f('Qui_on')}]}`)]);
    bad[bad.indexOf(0x5f)] = 0xf1;
    for (let window = 16; window < 64; window++) expect(splitFile(bad, window)!.utf8, `window ${window}`).toBe(false);
  });

  it('grows the window for a feature larger than it, and holds no more than that', () => {
    const ring = Array.from({ length: 2000 }, (_, k) => [k / 1000, k % 2]);
    const big = JSON.stringify({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } });
    const b = bytes(`{"type":"FeatureCollection","features":[${big},${big}]}`);
    expect(plain(splitFile(b, 16))).toEqual(plain(splitFeatureCollection(b)));
  });

  it('starts after a byte-order mark', () => {
    const b = bytes(`\uFEFF{"type":"FeatureCollection","features":[{"type":"Feature"}]}`);
    expect(plain(splitFile(b, 16, 3))).toEqual(plain(splitFeatureCollection(b, 3)));
  });

  describe('with the features after a byte near the end split by another thread', () => {
    /** The file split as the import does, its tail split "by another thread" (here, synchronously) with its own descriptor. */
    const withTail = (b: Uint8Array, window: number, fail = false, readyAfter?: number) => {
      const path = join(dir, 't.geojson');
      writeFileSync(path, b);
      const fd = openSync(path, 'r');
      const other = openSync(path, 'r');
      const used: number[] = [];
      const tail: TailStarter = {
        minBytes: 0,
        from: (start) => {
          // With readyAfter, the other thread is late: its features are there only after that many polls (never: Infinity).
          let polls = 0;
          const ready = readyAfter === undefined ? undefined : () => ++polls > readyAfter;
          return { start, ready, take: () => (used.push(start), fail ? null : splitFeaturesFrom(other, b.length, start, window)) };
        },
      };
      try {
        return { split: splitFeatureFile(fd, b.length, 0, window, tail), used };
      } finally {
        closeSync(fd);
        closeSync(other);
      }
    };

    it('gives exactly what one thread gives, whatever the byte the other thread starts at', () => {
      fc.assert(fc.property(fc.array(feature, { maxLength: 8 }), spacing, fc.integer({ min: 16, max: 200 }), fc.boolean(), (features, ws, window, fail) => {
        const source = unescapeFixture(`{${ws}"type"${ws}:${ws}"FeatureCollection",${ws}"features"${ws}:${ws}${write(features, ws)},"bbox":[1,2,3,4]${ws}}${ws}`);
        const b = bytes(source);
        const { split } = withTail(b, window, fail);
        expect(plain(split)).toEqual(plain(splitFeatureCollection(b)));
        if (split) expect(split.utf8).toBe(true);
      }), { numRuns: 500 });
    });

    const f = (name: string, note = '') => `{"type":"Feature","properties":{"name":"${name}","note":"${note}"},"geometry":{"type":"Polygon","coordinates":[[[1,2],[3,4],[5,6],[1,2]]]}}`;

    it('takes the other thread\'s features when its own scan reaches that byte at an element', () => {
      const b = bytes(`{"type":"FeatureCollection","features":[${Array.from({ length: 40 }, (_, i) => f(`F${i}`)).join(',\n')}]}`);
      const { split, used } = withTail(b, 64);
      expect(used).toHaveLength(1);
      expect(plain(split)).toEqual(plain(splitFeatureCollection(b)));
      expect(split!.starts).toHaveLength(40);
      // Nothing large freed while the import runs (free-buffers.ts): the polygons reach the workers shared, not copied,
      // and the other thread's tables are held with these rather than freed once appended.
      expect(split!.polygons.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(split!.held).toMatchObject({ starts: expect.any(Float64Array) as unknown });
    });

    it('ignores them when that byte is inside a string that looks like the start of a feature', () => {
      // The middle feature's note, all of the file's middle, reads like the end of one feature and the start of the next.
      const b = bytes(`{"type":"FeatureCollection","features":[${f('A')},${f('B', '} , {'.repeat(100_000))},${f('C')}]}`);
      const { split, used } = withTail(b, 64);
      expect(used).toEqual([]);
      expect(plain(split)).toEqual(plain(splitFeatureCollection(b)));
    });

    it('goes on alone when the other thread could not split them', () => {
      const b = bytes(`{"type":"FeatureCollection","features":[${Array.from({ length: 40 }, (_, i) => f(`F${i}`)).join(',')}]}`);
      const { split, used } = withTail(b, 64, true);
      expect(used).toHaveLength(1);
      expect(plain(split)).toEqual(plain(splitFeatureCollection(b)));
    });

    it('scans on while the other thread is late, then takes its features in place of its own, or keeps its own', () => {
      const b = bytes(`{"type":"FeatureCollection","features":[${Array.from({ length: 40 }, (_, i) => f(`F${i}`)).join(',\n')}]}`);
      const one = plain(splitFeatureCollection(b));
      for (const readyAfter of [0, 1, 3, 10, Infinity]) {
        for (const fail of [false, true]) {
          const { split, used } = withTail(b, 64, fail, readyAfter);
          expect(plain(split), `ready after ${readyAfter} polls${fail ? ', failed' : ''}`).toEqual(one);
          // Taken once it is there (the tail starts near the 30th of 40 features); never asked for when it never is.
          expect(used, `ready after ${readyAfter} polls`).toHaveLength(readyAfter === Infinity ? 0 : 1);
        }
      }
    });

    it('gives exactly what one thread gives when the other thread is late by any number of features', () => {
      fc.assert(fc.property(fc.array(feature, { maxLength: 8 }), spacing, fc.integer({ min: 16, max: 200 }), fc.boolean(), fc.integer({ min: 0, max: 10 }), (features, ws, window, fail, late) => {
        const b = bytes(unescapeFixture(`{${ws}"type"${ws}:${ws}"FeatureCollection",${ws}"features"${ws}:${ws}${write(features, ws)}${ws}}`));
        expect(plain(withTail(b, window, fail, late).split)).toEqual(plain(splitFeatureCollection(b)));
      }), { numRuns: 300 });
    });

    it('tells whether every byte is UTF-8, the other thread\'s part included', () => {
      const b = bytes(`{"type":"FeatureCollection","features":[${Array.from({ length: 40 }, (_, i) => f(`F${i}`)).join(',')}]}`.replace('F39', 'F_9'));
      b[b.lastIndexOf(0x5f)] = 0xf1; // a Latin-1 "ñ" in the last feature's name: bytes the other thread read
      const { split, used } = withTail(b, 64);
      expect(used).toHaveLength(1);
      expect(split!.utf8).toBe(false);
    });
  });
});
