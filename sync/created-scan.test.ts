// The 201 scanner against JSON.parse, its oracle: whenever it answers, the text is JSON and each field is what
// JSON.parse gives; it gives up (undefined) on anything it does not read plainly, and never throws.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REF_KEY } from '../core/parcels/client-ref.ts';
import { ScannedCreated, scanCreated } from './created-scan.ts';
import { ServiceClient } from './http.ts';

const RUNS = process.env.CI_LONG ? 2000 : 300;

/** What the push reads of each element, as JSON.parse gives it. */
function viaParse(text: string) {
  const parsed = JSON.parse(text) as Record<string, unknown>[];
  return parsed.map((e) => {
    const p = e.properties as Record<string, unknown> | undefined;
    const m = p?.metadata as Record<string, unknown> | undefined;
    return { id: e.id, hasProperties: 'properties' in e, key: p?.key, hasMetadata: p !== undefined && 'metadata' in p, ref: m?.[REF_KEY], whole: e };
  });
}

function viaScan(scan: ScannedCreated) {
  return scan.features.map((f) => ({
    id: f.id, hasProperties: f.properties !== undefined, key: f.properties?.key, hasMetadata: f.properties?.metadata !== undefined,
    ref: f.properties?.metadata?.[REF_KEY], whole: JSON.parse(f.text()) as unknown,
  }));
}

/** The oracle: an answer means valid JSON read the same way. */
function agrees(text: string): boolean {
  const scan = scanCreated(text);
  if (scan === undefined) return false;
  expect(() => JSON.parse(text), text.slice(0, 200)).not.toThrow();
  expect(viaScan(scan)).toEqual(viaParse(text));
  return true;
}

const feature = (id: number, ref: string, extra: Record<string, unknown> = {}) => ({
  type: 'Feature', id, bbox: [-4.01, 37.2, -4, 37.21],
  geometry: { type: 'Polygon', coordinates: [[[-4.01, 37.2], [-4, 37.2], [-4, 37.21], [-4.01, 37.2]]] },
  properties: { key: `0b7e4a1c-2f3d-4e5a-8b6c-7d8e9f${String(id).padStart(6, '0')}`, name: `Field ${id} "north" \u00e9\u{1F33E}`, hectares: '2.51', is_active: true, metadata: { 'Supplier ID': 'S-1', [REF_KEY]: ref, nested: { a: [1, -2.5e-3, null, false] } } },
  ...extra,
});

describe('scanCreated', () => {
  it("reads each created parcel's id, key and client reference, and its whole text, as JSON.parse does", () => {
    const answer = [feature(1, 'r1'), feature(2, 'r2'), feature(3, 'r3')];
    for (const text of [JSON.stringify(answer), JSON.stringify(answer, null, 2), `\n\t ${JSON.stringify(answer)} \r\n`]) {
      expect(agrees(text)).toBe(true);
      const scan = scanCreated(text)!;
      expect(scan.features.map((f) => [f.id, f.properties?.key?.slice(-6), f.properties?.metadata?.[REF_KEY]])).toEqual([[1, '000001', 'r1'], [2, '000002', 'r2'], [3, '000003', 'r3']]);
      expect(JSON.parse(scan.features[1]!.text())).toEqual(answer[1]);
    }
    expect(scanCreated('[]')!.features).toEqual([]);
  });

  it('keeps the last of duplicate keys, at every level, as JSON.parse does', () => {
    const text = '[{"id":1,"properties":{"key":"a","metadata":{"furrow_ref":"x"}},"id":2,"properties":{"key":"b","metadata":{"furrow_ref":"y","furrow_ref":"z"},"key":"c"}},'
      + '{"properties":{"key":"k","metadata":{"furrow_ref":"r"}},"properties":{"name":"only"},"id":3}]';
    expect(agrees(text)).toBe(true);
    expect(viaScan(scanCreated(text)!).map((f) => [f.id, f.key, f.ref, f.hasMetadata])).toEqual([[2, 'c', 'z', true], [3, undefined, undefined, false]]);
  });

  it('gives up on what it does not read plainly, so that JSON.parse decides', () => {
    for (const text of [
      '{"id":1}', '[1]', '["a"]', '[null]', // not an array of objects
      '[{"id":1.0}]', '[{"id":1e2}]', '[{"id":"1"}]', '[{"id":-0.5}]', // an id that is not a plain integer
      '[{"i\\u0064":1}]', '[{"properties":{"k\\u0065y":"a"}}]', // an escape in a key
      '[{"properties":{"key":"a\\"b"}}]', '[{"properties":{"metadata":{"furrow_ref":"\\u0072"}}}]', // an escape in a kept string
      '[{"properties":{"key":1}}]', '[{"properties":{"metadata":{"furrow_ref":2}}}]', '[{"properties":null}]', '[{"properties":{"metadata":[]}}]',
      // Not JSON at all.
      '', ' ', '[', '[{}', '[{},]', '[,{}]', '[{"id":01}]', '[{"a":1,}]', '[{"a" 1}]', '[{a:1}]', '[{"a":tru}]', '[{"a":"\u0001"}]',
      '[{"a":"\\x"}]', '[{"a":"\\u12G4"}]', '[{"a":-}]', '[{"a":1.}]', '[{"a":.5}]', '[{"a":1e}]', '[{"a":[1,]}]', '[{"a":{"b":1,}}]',
      '[{}] x', '\uFEFF[{}]', '[{"a":NaN}]', "[{'a':1}]", '[{"a":1}]]', '[{"a":[}]', '[{"a":{]}]',
    ]) {
      expect(scanCreated(text), text).toBeUndefined();
    }
  });

  it('walks deep nesting without recursion', () => {
    const deep = 200_000;
    const text = `[{"id":7,"geometry":${'['.repeat(deep)}${']'.repeat(deep)}}]`;
    expect(() => JSON.parse(text)).not.toThrow();
    expect(scanCreated(text)!.features.map((f) => f.id)).toEqual([7]);
    expect(scanCreated(`[{"id":7,"geometry":${'['.repeat(deep)}${']'.repeat(deep - 1)}}]`)).toBeUndefined();
  });

  it('agrees with JSON.parse on generated answers, plain or not', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    const props = fc.record({ key: fc.oneof(fc.uuid(), fc.string(), value), metadata: fc.oneof(fc.dictionary(fc.constantFrom(REF_KEY, 'a', 'b c'), value), value, fc.record({ [REF_KEY]: fc.string() })) }, { requiredKeys: [] });
    const element = fc.record({ id: fc.oneof(fc.integer(), fc.double(), value), properties: fc.oneof(props, value), geometry: value, bbox: value }, { requiredKeys: [] });
    fc.assert(fc.property(fc.array(fc.oneof(element, value), { maxLength: 6 }), fc.constantFrom(undefined, 1, '\t'), (answer, indent) => {
      const text = JSON.stringify(answer, null, indent);
      const read = agrees(text);
      // Plain answers are read: objects with integer ids and plain strings where they are kept.
      if (answer.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e)) && !/\\/.test(text) && !/"id":\s*-?\d+[.eE]/.test(text)
        && answer.every((e) => { const o = e as Record<string, unknown>; return !('id' in o) || Number.isInteger(o.id); })) {
        const plainProps = answer.every((e) => {
          const p = (e as Record<string, unknown>).properties;
          if (p === undefined) return true;
          if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
          const q = p as Record<string, unknown>;
          if ('key' in q && typeof q.key !== 'string') return false;
          if (!('metadata' in q)) return true;
          const m = q.metadata;
          return typeof m === 'object' && m !== null && !Array.isArray(m) && (!(REF_KEY in m) || typeof (m as Record<string, unknown>)[REF_KEY] === 'string');
        });
        if (plainProps) expect(read, text).toBe(true);
      }
    }), { numRuns: RUNS });
  });

  it('never takes broken JSON for an answer: every one-character change of a real answer', () => {
    const text = JSON.stringify([feature(1, 'r1'), feature(22, 'r2')]);
    const glyphs = ['', '"', '\\', ',', ':', '{', '}', '[', ']', '0', '-', '.', 'e', ' ', 'x', '\u0000', 't'];
    fc.assert(fc.property(fc.nat(text.length - 1), fc.constantFrom(...glyphs), fc.boolean(), (at, glyph, insert) => {
      const changed = text.slice(0, at) + glyph + text.slice(insert ? at : at + 1);
      let ok = true;
      try { JSON.parse(changed); } catch { ok = false; }
      const scan = scanCreated(changed);
      if (!ok) expect(scan, changed).toBeUndefined();
      else if (scan) agrees(changed);
    }), { numRuns: RUNS * 5 });
  });

  it("reads the answer's bytes as the client receives them, and leaves what it gives up on to JSON.parse", async () => {
    const plain = JSON.stringify([feature(1, 'r1'), feature(2, 'r2')]);
    const escaped = plain.replace('"key"', '"k\\u0065y"');
    // Sent in pieces that cut multi-byte characters in two: the scan reads the bytes whole, never a piece decoded alone.
    const server = createServer((req, res) => {
      const body = Buffer.from(req.url === '/plain' ? plain : escaped);
      res.writeHead(201, { 'content-type': 'application/json' });
      for (let k = 0; k < body.length; k += 7) res.write(body.subarray(k, k + 7));
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new ServiceClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, accountId: 'acc-1', credentials: { mode: 'api_key', apiKey: 'fk_x' } });
    try {
      const read = await client.send('POST', '/plain', {}, scanCreated);
      expect(read.body).toBeInstanceOf(ScannedCreated);
      expect(viaScan(read.body as ScannedCreated)).toEqual(viaParse(plain));
      const parsed = await client.send('POST', '/escaped', {}, scanCreated);
      expect(parsed.body).toEqual(JSON.parse(escaped));
    } finally {
      await client.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
