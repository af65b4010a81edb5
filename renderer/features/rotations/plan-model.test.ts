import { describe, expect, it } from 'vitest';
import type { FarmRotation, RotationCrop } from '../../../core/api.ts';
import { defaultRuleSet } from '../../../core/crops/rule-set.ts';
import { cellKey, familyFor, patternEdits, patternOf, placeViolations, planColumns } from './plan-model.ts';

const crop = (id: string, parcel: string, campaign: string, name: string, family: string): RotationCrop => ({
  id, parcel, serverId: null, campaign, name, variety: null, family: { id: null, name: family }, sowing: null, closure: null,
  harvestedQty: null, area: null, active: false, state: 'pending', reason: null, warnings: [],
});
const grid = (crops: RotationCrop[], current = 2025): FarmRotation => {
  const campaigns = [...new Set(crops.map((c) => c.campaign))].sort();
  return {
    farm: 'f', current, campaigns,
    parcels: ['A', 'B'].map((p) => ({ parcel: p, name: `Parcel ${p}`, hectares: 20, cells: campaigns.map((c) => ({ campaign: c, crops: crops.filter((x) => x.parcel === p && x.campaign === c), familyRepeats: false })) })),
  };
};

describe('the rotation table plan', () => {
  const g = grid([crop('1', 'A', '2024/2025', 'Chickpea', 'Fabaceae'), crop('2', 'A', '2025/2026', 'Wheat', 'Poaceae'), crop('3', 'B', '2026/2027', 'Lentil', 'Fabaceae'), crop('4', 'B', '2026/2027', 'Oats', 'Poaceae')]);

  it('offers the two campaigns after the current one', () => {
    expect(planColumns(g)).toEqual(['2024/2025', '2025/2026', '2026/2027', '2027/2028']);
    expect(planColumns(grid([crop('1', 'A', '2025', 'Wheat', 'Poaceae')]))).toEqual(['2025', '2026', '2027']);
  });

  it("places parcel violations on their cells and the farm's on their campaign", () => {
    const placed = placeViolations(grid([crop('1', 'A', '2024/2025', 'Chickpea', 'Fabaceae'), crop('2', 'A', '2026/2027', 'Lentil', 'Fabaceae')]), defaultRuleSet());
    expect(placed.cells.get(cellKey('A', '2026/2027'))?.map((v) => v.rule)).toEqual(['return_period']);
    expect(placed.campaigns.get('2026/2027')?.map((v) => v.rule)).toEqual(['diversification', 'diversification']);
    expect(placed.all).toHaveLength(5);
  });

  it("takes a crop's family from the farm's crops, else from the account's families", () => {
    expect(familyFor('chickpea ', g, [])).toBe('Fabaceae');
    expect(familyFor('Safflower', g, [{ name: 'Asteraceae' }])).toBe('Asteraceae');
    expect(familyFor('Safflower', g, [])).toBeNull();
  });

  it('applies a pattern to planned cells only: created, renamed, the extra crops removed, blanks left alone', () => {
    const fam = (n: string) => (n === 'Lentil' ? 'Fabaceae' : 'Poaceae');
    const edits = patternEdits(g, ['A', 'B'], new Map([['2025/2026', 'Barley'], ['2026/2027', 'Lentil'], ['2027/2028', '']]), fam);
    expect(edits).toEqual([
      { kind: 'create', parcel: 'A', campaign: '2026/2027', name: 'Lentil', family: 'Fabaceae' },
      { kind: 'delete', id: '4' },
    ]);
    expect(patternOf(g, 'B', ['2026/2027', '2027/2028'])).toEqual(new Map([['2026/2027', 'Lentil'], ['2027/2028', '']]));
  });
});
