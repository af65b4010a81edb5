import { describe, expect, it } from 'vitest';
import { columnId, columnTitle, parseColumn } from './columns.ts';

describe('table columns', () => {
  it('names a base column and a metadata key, and reads them back', () => {
    expect(parseColumn('hectares')).toEqual({ base: 'hectares' });
    expect(parseColumn('meta:soil type')).toEqual({ key: 'soil type' });
    expect(parseColumn('meta:a:b')).toEqual({ key: 'a:b' });
    expect(columnId({ key: 'x' })).toBe('meta:x');
    expect(columnId({ base: 'state' })).toBe('state');
  });
  it('refuses what names no column', () => {
    expect(parseColumn('meta:')).toBeNull();
    expect(parseColumn('geometry')).toBeNull();
    expect(parseColumn('')).toBeNull();
  });
  it('titles a column', () => {
    expect(columnTitle('state')).toBe('Sync state');
    expect(columnTitle('meta:region')).toBe('region');
  });
});
