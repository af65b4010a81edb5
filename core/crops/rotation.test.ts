import { describe, expect, it } from 'vitest';
import { campaignOrder, campaignYear, familyRepeats, newestFirst, sameFamily, type RotationEntry } from './rotation.ts';

const POA = { id: 1, name: 'Poaceae' };
const FAB = { id: 2, name: 'Fabaceae' };
const crop = (id: string, over: Partial<RotationEntry> = {}): RotationEntry => ({
  id, campaign: null, sowing: null, closure: null, active: false, family: POA, ...over,
});
/** Which crops are flagged, each with the crops it follows and by which rule. */
const flagged = (crops: RotationEntry[]) => Object.fromEntries([...familyRepeats(crops)].map(([id, r]) => [id, r.map((x) => `${x.after}:${x.by}`)]));

describe('campaignYear', () => {
  it.each([
    ['2023/2024', 2023], ['2024-25', 2024], ['2024', 2024], ['Campaign 2024', 2024], ['Winter 1999', 1999],
    ['autumn', null], ['12024', null], ['20245', null], ['', null], [null, null],
  ])('%j → %j', (label, year) => {
    expect(campaignYear(label)).toBe(year);
  });
});

describe('familyRepeats, by campaign', () => {
  it('flags a family grown in the campaign right after one of its own, and nothing else', () => {
    const crops = [
      crop('wheat', { campaign: '2022/2023' }), crop('barley', { campaign: '2023/2024' }),
      crop('chickpea', { campaign: '2024/2025', family: FAB }), crop('maize', { campaign: '2025/2026' }),
    ];
    expect(flagged(crops)).toEqual({ barley: ['wheat:campaign'] });
    expect(familyRepeats(crops).get('barley')).toEqual([{ after: 'wheat', family: 'Poaceae', by: 'campaign' }]);
  });

  it('a campaign without a crop in between (fallow) breaks the succession; crops of one campaign never follow each other', () => {
    expect(flagged([crop('a', { campaign: '2022' }), crop('b', { campaign: '2024' })])).toEqual({});
    expect(flagged([crop('a', { campaign: '2024' }), crop('b', { campaign: '2024' })])).toEqual({});
  });

  it('takes precedence over the dates when both crops have a campaign year', () => {
    // Consecutive campaigns though the ground rested well over a year by the dates; and the reverse.
    expect(flagged([
      crop('a', { campaign: '2023', sowing: '2023-01-10', closure: '2023-02-01' }),
      crop('b', { campaign: '2024', sowing: '2024-12-01', closure: '2025-02-01' }),
    ])).toEqual({ b: ['a:campaign'] });
    expect(flagged([
      crop('a', { campaign: '2022', sowing: '2023-10-01', closure: '2024-06-01' }),
      crop('b', { campaign: '2024', sowing: '2024-07-01' }),
    ])).toEqual({});
  });

  it('flags each crop of the next campaign against each of the family in the one before', () => {
    expect(flagged([
      crop('w', { campaign: '2023' }), crop('o', { campaign: '2023' }), crop('b', { campaign: '2024' }), crop('p', { campaign: '2024', family: FAB }),
    ])).toEqual({ b: ['w:campaign', 'o:campaign'] });
  });
});

describe('familyRepeats, by sowing → closure periods when a campaign is missing', () => {
  it('flags a crop sown while one of its family was still on the ground', () => {
    expect(flagged([crop('a', { sowing: '2024-01-10', closure: '2024-06-30' }), crop('b', { sowing: '2024-06-30', closure: '2024-09-01' })])).toEqual({ b: ['a:dates'] });
    // Still active, with no closure: on the ground whatever was sown after it, even past another crop.
    expect(flagged([
      crop('a', { sowing: '2020-01-10', active: true }), crop('x', { sowing: '2021-03-01', family: FAB, closure: '2021-05-01' }), crop('b', { sowing: '2024-06-30' }),
    ])).toEqual({ b: ['a:dates'] });
  });

  it('flags the next crop sown within a year of the closure, not after a year of rest', () => {
    expect(flagged([crop('a', { sowing: '2023-10-10', closure: '2024-07-01' }), crop('b', { sowing: '2025-06-30' })])).toEqual({ b: ['a:dates'] });
    expect(flagged([crop('a', { sowing: '2023-10-10', closure: '2024-07-01' }), crop('b', { sowing: '2025-07-01' })])).toEqual({});
  });

  it('does not flag across a crop of another family sown in between', () => {
    expect(flagged([
      crop('a', { sowing: '2024-01-10', closure: '2024-03-01' }), crop('r', { sowing: '2024-03-10', closure: '2024-05-01', family: FAB }),
      crop('b', { sowing: '2024-06-01', closure: '2024-09-01' }),
    ])).toEqual({});
  });

  it('takes a season for a past crop whose closure was not recorded', () => {
    expect(flagged([crop('a', { sowing: '2023-10-10' }), crop('b', { sowing: '2024-10-01' })])).toEqual({ b: ['a:dates'] });
    expect(flagged([crop('a', { sowing: '2023-10-10' }), crop('b', { sowing: '2025-10-10' })])).toEqual({});
  });

  it('uses the dates when only one of the two has a campaign year, and flags one of two sown the same day', () => {
    expect(flagged([crop('a', { campaign: '2023', sowing: '2023-02-01', closure: '2023-07-01' }), crop('b', { campaign: 'spring', sowing: '2023-08-01' })])).toEqual({ b: ['a:dates'] });
    expect(flagged([crop('b', { sowing: '2024-02-01', closure: '2024-07-01' }), crop('a', { sowing: '2024-02-01', closure: '2024-05-01' })])).toEqual({ b: ['a:dates'] });
  });

  it('cannot place a crop with neither a campaign year nor a sowing date', () => {
    expect(flagged([crop('a', { closure: '2024-01-01' }), crop('b', { sowing: '2024-02-01' }), crop('c', { campaign: 'spring' })])).toEqual({});
  });
});

describe('sameFamily', () => {
  it('by id when both have one, else by name ignoring case and spaces; an unknown family is never the same', () => {
    expect(sameFamily(POA, { id: 1, name: 'renamed' })).toBe(true);
    expect(sameFamily(POA, { id: 3, name: 'Poaceae' })).toBe(false);
    expect(sameFamily({ id: null, name: ' poaceae ' }, POA)).toBe(true);
    expect(sameFamily({ id: 1, name: null }, { id: null, name: 'Poaceae' })).toBe(false);
    expect(sameFamily({ id: null, name: '' }, { id: null, name: '' })).toBe(false);
    expect(sameFamily(null, POA)).toBe(false);
    expect(flagged([crop('a', { campaign: '2023', family: null }), crop('b', { campaign: '2024', family: null })])).toEqual({});
    expect(flagged([crop('a', { campaign: '2023' }), crop('b', { campaign: '2024', family: { id: null, name: 'POACEAE' } })])).toEqual({ b: ['a:campaign'] });
  });
});

describe('ordering', () => {
  it('newestFirst: by sowing or campaign year, then campaign, then the newest created; undated last', () => {
    const c = (id: string, sowing: string | null, campaign: string | null, created = '2026-01-01') => ({ id, sowing, campaign, created });
    const list = [
      c('undated', null, null), c('old', '2022-10-01', '2022/2023'), c('planned', null, '2025/2026'), c('new', '2024-10-01', '2024/2025'),
      c('newer-created', null, null, '2026-02-01'), c('same-day-b', '2023-10-01', 'b'), c('same-day-a', '2023-10-01', 'a'),
    ];
    expect(list.sort(newestFirst).map((x) => x.id)).toEqual(['planned', 'new', 'same-day-b', 'same-day-a', 'old', 'newer-created', 'undated']);
  });

  it('campaignOrder: oldest first by year then label, those without a year after, no campaign last, each once', () => {
    expect(campaignOrder(['2024/2025', null, 'spring', '2022/2023', '2023', '2024/2025', 'autumn'])).toEqual(['2022/2023', '2023', '2024/2025', 'autumn', 'spring', null]);
  });
});
