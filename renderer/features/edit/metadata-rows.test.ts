import { describe, expect, it } from 'vitest';
import { checkRows, rowsOf, valueOf } from './metadata-rows.ts';
import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_STRING_LENGTH } from '../../../core/parcels/limits.ts';

describe('metadata rows', () => {
  it('makes the metadata of keys with spaces, keeping numbers and booleans the parcel held', () => {
    const before = { contract_year: 2025, organic: true, region: 'north' };
    const rows = [...rowsOf(before), { key: 'soil type', value: 'loam' }];
    expect(rows[0]).toEqual({ key: 'contract_year', value: '2025' });
    const c = checkRows(rows, before);
    expect(c.metadata).toEqual({ contract_year: 2025, organic: true, region: 'north', 'soil type': 'loam' });
    expect(c.rows.every((p) => p.key.length === 0 && p.value.length === 0)).toBe(true);
  });

  it('turns a number typed over with text into a string, and a new value is always a string', () => {
    expect(valueOf('2026', 2025)).toBe(2026);
    expect(valueOf('soon', 2025)).toBe('soon');
    expect(valueOf('', 2025)).toBe('');
    expect(valueOf('12', undefined)).toBe('12');
    expect(valueOf('false', true)).toBe(false);
  });

  it("refuses an empty key, a key or a value too long, with the service's reason on the field at fault", () => {
    const c = checkRows([{ key: '', value: 'x' }, { key: 'k'.repeat(MAX_METADATA_KEY_LENGTH + 1), value: 'x' }, { key: 'note', value: 'v'.repeat(MAX_METADATA_STRING_LENGTH + 1) }], {});
    expect(c.metadata).toBeNull();
    expect(c.rows[0]!.key.join()).toMatch(/must not be empty/);
    expect(c.rows[1]!.key.join()).toMatch(/at most 200/);
    expect(c.rows[1]!.value).toEqual([]);
    expect(c.rows[2]!.value.join()).toMatch(/at most 2000/);
    expect(c.rows[2]!.key).toEqual([]);
  });

  it('refuses a key used twice and the sync engine\'s own key', () => {
    const c = checkRows([{ key: 'a', value: '1' }, { key: 'a', value: '2' }, { key: 'furrow_ref', value: 'x' }], {});
    expect(c.metadata).toBeNull();
    expect(c.rows[0]!.key).toEqual([]);
    expect(c.rows[1]!.key.join()).toMatch(/already used/);
    expect(c.rows[2]!.key.join()).toMatch(/kept by Furrow's sync/);
  });

  it('refuses more keys than the service allows, as a problem of the whole', () => {
    const rows = Array.from({ length: 201 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    const c = checkRows(rows, {});
    expect(c.metadata).toBeNull();
    expect(c.whole.join()).toMatch(/at most 200/);
  });
});
