import { describe, expect, it } from 'vitest';
import { CRS_CHOICES, inCrs, parseEpsg } from './export-crs.ts';

describe('export coordinate systems', () => {
  it('reads a typed EPSG code, with or without its prefix, and nothing else', () => {
    expect(parseEpsg('25830')).toBe(25830);
    expect(parseEpsg(' EPSG:2154 ')).toBe(2154);
    expect(parseEpsg('epsg : 27700')).toBe(27700);
    expect(parseEpsg('0')).toBeNull();
    expect(parseEpsg('102001')).toBeNull();
    expect(parseEpsg('25830a')).toBeNull();
    expect(parseEpsg('')).toBeNull();
  });

  it('offers WGS84 first, and names only another CRS in words', () => {
    expect(CRS_CHOICES[0]!.code).toBe(4326);
    expect(new Set(CRS_CHOICES.map((c) => c.code)).size).toBe(CRS_CHOICES.length);
    expect(inCrs(4326)).toBe('');
    expect(inCrs(25830)).toBe(' in EPSG:25830');
  });
});
