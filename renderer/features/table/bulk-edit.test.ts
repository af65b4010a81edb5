import { describe, expect, it } from 'vitest';
import { bulkEditOf } from './bulk-edit.ts';

describe("the table's bulk edit form", () => {
  it('sets a key to text, a number, yes or no, or removes it', () => {
    expect(bulkEditOf('text', ' soil ', 'clay', '')).toEqual({ metadata: { key: 'soil', value: 'clay' } });
    expect(bulkEditOf('number', 'depth', ' 40.5 ', '')).toEqual({ metadata: { key: 'depth', value: 40.5 } });
    expect(bulkEditOf('yes', 'irrigated', '', '')).toEqual({ metadata: { key: 'irrigated', value: true } });
    expect(bulkEditOf('no', 'irrigated', '', '')).toEqual({ metadata: { key: 'irrigated', value: false } });
    expect(bulkEditOf('remove', 'old', 'ignored', '')).toEqual({ metadata: { key: 'old', value: null } });
  });
  it('adds a crop, with its campaign when given', () => {
    expect(bulkEditOf('crop', '', ' Wheat ', '2026')).toEqual({ crop: { name: 'Wheat', campaign: '2026' } });
    expect(bulkEditOf('crop', '', 'Oats', ' ')).toEqual({ crop: { name: 'Oats' } });
  });
  it('says what is missing rather than sending nothing', () => {
    expect(bulkEditOf('text', ' ', 'x', '')).toBe('Name the metadata key to set.');
    expect(bulkEditOf('number', 'depth', 'deep', '')).toBe('"deep" is not a number.');
    expect(bulkEditOf('number', 'depth', '', '')).toBe('"" is not a number.');
    expect(bulkEditOf('crop', '', '  ', '')).toBe('Name the crop to add.');
  });
});
