import { describe, expect, it } from 'vitest';
import { filtersOf, parseFilterText } from './filter-text.ts';

describe("a table column's filter box", () => {
  it('looks for a word, an exact value, a number below or above, empty or filled', () => {
    expect(parseFilterText('name', ' olivo ')).toEqual({ column: 'name', op: 'contains', value: 'olivo' });
    expect(parseFilterText('meta:soil', '=Clay')).toEqual({ column: 'meta:soil', op: 'equals', value: 'Clay' });
    expect(parseFilterText('hectares', '<5')).toEqual({ column: 'hectares', op: 'lt', value: 5 });
    expect(parseFilterText('hectares', '> 2.5')).toEqual({ column: 'hectares', op: 'gt', value: 2.5 });
    expect(parseFilterText('crop', '=')).toEqual({ column: 'crop', op: 'empty' });
    expect(parseFilterText('crop', '*')).toEqual({ column: 'crop', op: 'notEmpty' });
  });
  it('takes what is no number after < or > as text, and an empty box as no filter', () => {
    expect(parseFilterText('name', '<b>')).toEqual({ column: 'name', op: 'contains', value: '<b>' });
    expect(parseFilterText('name', '   ')).toBeNull();
    expect(filtersOf({ name: 'a', hectares: '', crop: '*' })).toEqual([{ column: 'name', op: 'contains', value: 'a' }, { column: 'crop', op: 'notEmpty' }]);
  });
});
