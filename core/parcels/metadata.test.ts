import { describe, it, expect } from 'vitest';
import type { Position } from '../geo/types.ts';
import { MAX_METADATA_KEYS, MAX_METADATA_KEY_LENGTH, MAX_METADATA_STRING_LENGTH, validateMetadata, validateParcel } from './validate.ts';

const P = 'parcels/2/metadata';
const check = (value: unknown) => validateMetadata(value, 2, P);
const summary = (value: unknown) => check(value).map((p) => [p.code, p.path]);
const ring: Position[] = [[5, 52], [5.005, 52], [5.005, 52.005], [5, 52.005], [5, 52]];
const parcelWith = (metadata: unknown) =>
  ({ name: 'A', metadata, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } } });

describe('metadata', () => {
  it('accepts strings, finite numbers and booleans, and keys with spaces', () => {
    expect(check({ 'Supplier ID': 'S-104', region: 'Almería', contract_year: 2025, organic: true, yield: -0.5 })).toEqual([]);
    expect(check({})).toEqual([]);
  });

  it.each([null, [], ['a'], 'region=north', 3, true])('reports metadata_invalid for a non-object %j', (value) => {
    const problems = check(value);
    expect(problems).toEqual([expect.objectContaining({ index: 2, path: P, code: 'metadata_invalid' })]);
    expect(problems[0]!.message).toMatch(/^Parcel 2: metadata must be an object/);
  });

  it.each([
    ['a nested object', { a: 1 }],
    ['an array', ['x']],
    ['null', null],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('reports metadata_invalid for a value that is %s, at the key\'s path', (_what, v) => {
    expect(summary({ fine: 'yes', bad: v })).toEqual([['metadata_invalid', `${P}/bad`]]);
  });

  it('reports one problem per offending key', () => {
    expect(summary({ a: null, b: 'ok', c: {}, d: 1 })).toEqual([['metadata_invalid', `${P}/a`], ['metadata_invalid', `${P}/c`]]);
  });

  it('reports an empty key', () => {
    expect(summary({ '': 'x' })).toEqual([['metadata_invalid', `${P}/`]]);
  });

  it('limits key length to 200 characters', () => {
    expect(check({ ['k'.repeat(MAX_METADATA_KEY_LENGTH)]: 1 })).toEqual([]);
    const problems = check({ ['k'.repeat(MAX_METADATA_KEY_LENGTH + 1)]: 1 });
    expect(problems.map((p) => p.code)).toEqual(['metadata_invalid']);
    expect(problems[0]!.message).toContain('201 characters; at most 200');
  });

  it('limits string values to 2000 characters', () => {
    expect(check({ notes: 'n'.repeat(MAX_METADATA_STRING_LENGTH) })).toEqual([]);
    const problems = check({ notes: 'n'.repeat(MAX_METADATA_STRING_LENGTH + 1) });
    expect(problems.map((p) => [p.code, p.path])).toEqual([['metadata_invalid', `${P}/notes`]]);
    expect(problems[0]!.message).toContain('2001 characters; at most 2000');
  });

  it('limits the number of keys to 200', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(check(many(MAX_METADATA_KEYS))).toEqual([]);
    const problems = check(many(MAX_METADATA_KEYS + 1));
    expect(problems.map((p) => [p.code, p.path])).toEqual([['metadata_invalid', P]]);
    expect(problems[0]!.message).toContain('201 keys; at most 200');
  });

  it('escapes keys containing / or ~ in paths', () => {
    expect(summary({ 'a/b': null, '~x': null })).toEqual([['metadata_invalid', `${P}/a~1b`], ['metadata_invalid', `${P}/~0x`]]);
  });

  it('keeps a "__proto__" key from JSON as an ordinary key of the stored copy', () => {
    const input: unknown = JSON.parse('{"name":"A","metadata":{"__proto__":"x","b":1},"geom":{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[5,52],[5.005,52],[5.005,52.005],[5,52.005],[5,52]]]}}}');
    const { parcel } = validateParcel(input, 0, { maxHectares: 100 });
    expect(Object.keys(parcel!.metadata)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(parcel!.metadata)).toBe(Object.prototype);
  });

  it('is checked as part of a parcel, at the parcel\'s path', () => {
    const { problems } = validateParcel(parcelWith({ ok: 1, bad: [1] }), 5, { maxHectares: 100 });
    expect(problems.map((p) => [p.index, p.code, p.path])).toEqual([[5, 'metadata_invalid', 'parcels/5/metadata/bad']]);
    expect(validateParcel(parcelWith(null), 0, { maxHectares: 100 }).problems.map((p) => p.code)).toEqual(['metadata_invalid']);
  });

  it('is returned as a copy', () => {
    const metadata = { crop_type: 'wheat' };
    const { parcel } = validateParcel(parcelWith(metadata), 0, { maxHectares: 100 });
    expect(parcel!.metadata).toEqual(metadata);
    expect(parcel!.metadata).not.toBe(metadata);
  });
});
