// The filter's SQL pieces and the contract's bounds on it (core/api.ts viewport's `metadata`, checked by the host
// before a handler runs). Its matching is tested on SQLite in db/reader-filter.test.ts.
import { describe, expect, it } from 'vitest';
import { API } from '../api.ts';
import { problemsOf } from '../schemas/check.ts';
import { MAX_METADATA_FILTERS } from '../schemas/common.ts';
import { embeddedMapUrl, filtersOnRef, metadataFilterSql } from './metadata-filter.ts';
import { REF_KEY } from './client-ref.ts';

describe('the metadata filter', () => {
  it('is one condition per key, its values as one JSON array, from an object or a Map alike', () => {
    const f = { 'Supplier ID': ['S-1', 'S-2'], year: ['2024'] };
    const sql = metadataFilterSql('p.metadata', f);
    expect(sql.sql.match(/EXISTS/g)).toHaveLength(2);
    expect(sql.sql).toContain(' AND ');
    expect(sql.params).toEqual(['Supplier ID', '["S-1","S-2"]', 'year', '["2024"]']);
    expect(metadataFilterSql('p.metadata', new Map(Object.entries(f)))).toEqual(sql);
    expect(metadataFilterSql('p.metadata', {})).toEqual({ sql: '', params: [] });
    expect(filtersOnRef([REF_KEY, 'x'])).toBe(true);
    expect(filtersOnRef(['x'])).toBe(false);
  });

  it('is bounded by the contract as the service bounds its query', () => {
    const args = (metadata: unknown) => problemsOf(API.viewport.args, { account: 'a', bbox: [0, 0, 1, 1], metadata });
    expect(args({ 'Supplier ID': ['S-1', ''] })).toEqual([]);
    expect(args({ '': ['x'] })).not.toEqual([]);
    expect(args({ k: [] })).not.toEqual([]);
    expect(args({ k: [1] })).not.toEqual([]);
    expect(args(Object.fromEntries(Array.from({ length: MAX_METADATA_FILTERS + 1 }, (_, i) => [`k${i}`, ['v']])))).not.toEqual([]);
    expect(problemsOf(API.viewport.args, { account: 'a', bbox: [0, 0, 1, 1] })).toEqual([]);
  });

  it("writes the embedded map's address as the spec does: a key's spaces as +, the rest percent-encoded", () => {
    const base = 'http://127.0.0.1:8080/embed/?auth_id=abc';
    expect(embeddedMapUrl(base, {})).toBe(base);
    expect(embeddedMapUrl(base, { 'Supplier ID': ['S-12', 'S 13'], 'a+b&c': ['x=y'] }))
      .toBe(`${base}&metadata[Supplier+ID]=S-12&metadata[Supplier+ID]=S%2013&metadata[a%2Bb%26c]=x%3Dy`);
    expect(embeddedMapUrl('https://embed.example/', { crop: ['Olivo'] })).toBe('https://embed.example/?metadata[crop]=Olivo');
    // What the embedded page reads back (URLSearchParams, '+' as a space): the same keys and values.
    const read = [...new URL(embeddedMapUrl(base, { 'Supplier ID': ['S 13'], 'a+b&c': ['x=y'] })).searchParams].filter(([k]) => k.startsWith('metadata['));
    expect(read).toEqual([['metadata[Supplier ID]', 'S 13'], ['metadata[a+b&c]', 'x=y']]);
  });
});
