import { describe, expect, it } from 'vitest';
import { matchedMetadata } from './matched.ts';

describe('matchedMetadata', () => {
  const md = { 'Supplier ID': 'S-77', region: 'Andalucía', contract_year: 2025 };
  it('names the metadata pair a search found a parcel by', () => {
    expect(matchedMetadata('S-77', 'Almond orchard', md)).toBe('Supplier ID: S-77');
    expect(matchedMetadata('andal', 'Almond orchard', md)).toBe('region: Andalucía');
    expect(matchedMetadata('2025', 'Olivar B', md)).toBe('contract_year: 2025');
  });
  it('says nothing when the name shows the match, or nothing was typed', () => {
    expect(matchedMetadata('almond orch', 'Almond orchard', md)).toBeNull();
    expect(matchedMetadata('  ', 'Almond orchard', md)).toBeNull();
    expect(matchedMetadata('zzz', 'Almond orchard', md)).toBeNull();
  });
});
