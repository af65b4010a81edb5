import { describe, expect, it } from 'vitest';
import { arableByCampaign, checkPlan, diversification, thresholdsFor, type PlanParcel } from './plan-rules.ts';
import { defaultRuleSet, ruleSetProblem, type RuleSet } from './rule-set.ts';

let n = 0;
const crop = (campaign: string, name: string, family: string) => ({ id: `c${++n}`, name, family, campaign });
const parcel = (name: string, hectares: number, crops: PlanParcel['crops']): PlanParcel => ({ id: name, name, hectares, crops });
const rules = (over: Partial<RuleSet> = {}): RuleSet => ({ ...defaultRuleSet(), diversification: 'off', ...over });
const codes = (ps: PlanParcel[], r: RuleSet) => checkPlan(ps, r).map((v) => `${v.rule} ${v.parcel ?? '-'} ${v.campaign}`);

describe('return periods', () => {
  it('names a family back sooner than its period, on the parcel and campaign, with the crop it follows', () => {
    const p = parcel('A', 10, [crop('2023/2024', 'Chickpea', 'Fabaceae'), crop('2024/2025', 'Wheat', 'Poaceae'), crop('2026/2027', 'Lentil', 'Fabaceae')]);
    const v = checkPlan([p], rules());
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ rule: 'return_period', parcel: 'A', crop: p.crops[2]!.id, campaign: '2026/2027' });
    expect(v[0]!.message).toBe('Fabaceae back on A in 2026/2027, 3 years after Chickpea (2023/2024): its return period is 4 years');
  });

  it('allows the family back once the period has passed, and a family without a period any time', () => {
    const p = parcel('A', 10, [crop('2023/2024', 'Chickpea', 'Fabaceae'), crop('2027/2028', 'Lentil', 'Fabaceae'), crop('2024', 'Olive', 'Oleaceae'), crop('2026', 'Olive', 'Oleaceae')]);
    expect(codes([p], rules({ maxSameCrop: 0 }))).toEqual([]);
  });

  it('uses the edited period and matches families ignoring case', () => {
    const p = parcel('A', 10, [crop('2023/2024', 'Chickpea', 'fabaceae'), crop('2026/2027', 'Lentil', 'Fabaceae')]);
    expect(codes([p], rules({ returnPeriods: [{ family: 'Fabaceae', years: 3 }] }))).toEqual([]);
    expect(codes([p], rules({ returnPeriods: [{ family: 'FABACEAE', years: 5 }] }))).toEqual(['return_period A 2026/2027']);
  });
});

describe('monoculture streaks', () => {
  it('names the same crop past the limit of campaigns running, and not after a break', () => {
    const p = parcel('A', 10, ['2021', '2022', '2023', '2025', '2026'].map((c) => crop(c, 'Wheat', 'Poaceae')));
    const r = rules({ returnPeriods: [], maxSameFamily: 0, maxSameCrop: 2 });
    expect(codes([p], r)).toEqual(['same_crop A 2023']);
    expect(codes([p], { ...r, maxSameCrop: 3 })).toEqual([]);
  });

  it('names the same family past its limit though the crops differ', () => {
    const p = parcel('A', 10, [crop('2021', 'Wheat', 'Poaceae'), crop('2022', 'Barley', 'Poaceae'), crop('2023', 'Oats', 'Poaceae')]);
    const r = rules({ returnPeriods: [], maxSameCrop: 2, maxSameFamily: 2 });
    const v = checkPlan([p], r);
    expect(v.map((x) => x.rule)).toEqual(['same_family']);
    expect(v[0]!.message).toBe('Poaceae 3 campaigns running on A (2021 to 2023): at most 2 of one family');
    expect(checkPlan([p], { ...r, maxSameFamily: 0 })).toEqual([]);
  });
});

describe('crop diversification, Regulation (EU) No 1307/2013 Art. 44', () => {
  const eu = rules({ returnPeriods: [], maxSameCrop: 0, maxSameFamily: 0, diversification: 'eu-1307-2013' });
  const farm = (...areas: [string, number][]) => areas.map(([name, ha], i) => parcel(`P${i}`, ha, [crop('2026/2027', name, 'F')]));
  const div = (ps: PlanParcel[], r = eu) => checkPlan(ps, r).map((v) => v.message);

  it('exempts under 10 ha of arable land and checks from 10 ha', () => {
    expect(div(farm(['Wheat', 9.99]))).toEqual([]);
    expect(div(farm(['Wheat', 10]))).toEqual([
      '2026/2027: 1 crop on 10 ha of arable land, at least 2 needed (Regulation (EU) No 1307/2013, Art. 44(1), 10 to 30 ha of arable land)',
      '2026/2027: Wheat covers 100 % of the arable land, at most 75 % (Regulation (EU) No 1307/2013, Art. 44(1), 10 to 30 ha of arable land)',
    ]);
  });

  it('asks 2 crops up to 30 ha and 3 over it', () => {
    expect(div(farm(['Wheat', 20], ['Barley', 10]))).toEqual([]);
    const over = div(farm(['Wheat', 20], ['Barley', 10.01]));
    expect(over).toHaveLength(2);
    expect(over[0]).toMatch(/^2026\/2027: 2 crops on 30.01 ha of arable land, at least 3 needed \(.*over 30 ha/);
    expect(over[1]).toMatch(/Wheat and Barley cover 100 % together, at most 95 %/);
  });

  it('lets the main crop take 75 % and not more', () => {
    expect(div(farm(['Wheat', 15], ['Barley', 5]))).toEqual([]);
    expect(div(farm(['Wheat', 15.01], ['Barley', 5]))).toEqual([expect.stringMatching(/Wheat covers 75 % of the arable land, at most 75 %/)]);
  });

  it('lets the two main crops take 95 % over 30 ha and not more', () => {
    expect(div(farm(['Wheat', 30], ['Barley', 27], ['Peas', 3]))).toEqual([]);
    expect(div(farm(['Wheat', 30], ['Barley', 27.1], ['Peas', 2.9]))).toEqual([expect.stringMatching(/Wheat and Barley cover 95.2 % together, at most 95 %/)]);
    // Not checked in the 10–30 ha tier.
    expect(div(farm(['Wheat', 14], ['Barley', 9.8], ['Peas', 0.2]))).toEqual([]);
  });

  it('leaves permanent crops out of the arable area and shares a parcel among its crops', () => {
    const ps = [parcel('O', 50, [crop('2026/2027', 'Olive', 'Oleaceae')]), parcel('A', 8, [crop('2026/2027', 'Wheat', 'Poaceae'), crop('2026/2027', 'Peas', 'Fabaceae')])];
    expect(div(ps)).toEqual([]);
    expect(arableByCampaign(ps, eu)).toEqual([{ campaign: '2026/2027', arable: 8, crops: [{ name: 'Peas', hectares: 4 }, { name: 'Wheat', hectares: 4 }] }]);
    expect(div(ps, { ...eu, permanentCrops: [] })).toEqual([expect.stringMatching(/Olive covers 86.2 % of the arable land/)]);
  });

  it("checks the user's own thresholds instead, or nothing", () => {
    const custom = { ...eu, diversification: 'custom' as const, custom: { exemptBelowHa: 5, minCrops: 2, mainMax: 0.6, twoMainMax: null } };
    expect(div(farm(['Wheat', 6]), custom)).toEqual([
      '2026/2027: 1 crop on 6 ha of arable land, at least 2 needed (your diversification thresholds)',
      '2026/2027: Wheat covers 100 % of the arable land, at most 60 % (your diversification thresholds)',
    ]);
    expect(div(farm(['Wheat', 4.9]), custom)).toEqual([]);
    expect(div(farm(['Wheat', 60], ['Barley', 40]), custom)).toEqual([]);
    expect(div(farm(['Wheat', 100]), { ...eu, diversification: 'off' })).toEqual([]);
    expect(thresholdsFor(100, { ...eu, diversification: 'off' })).toBeNull();
  });

  it('checks each campaign on its own', () => {
    const areas = arableByCampaign([parcel('A', 20, [crop('2025/2026', 'Wheat', 'P'), crop('2026/2027', 'Peas', 'F')]), parcel('B', 20, [crop('2025/2026', 'Barley', 'P'), crop('2026/2027', 'Peas', 'F')])], eu);
    expect(areas.map((a) => [a.campaign, diversification(a, eu).length])).toEqual([['2025/2026', 2], ['2026/2027', 2]]);
  });
});

describe('rule sets', () => {
  it('refuses a family twice and a two-main share below the main one', () => {
    expect(ruleSetProblem(defaultRuleSet())).toBeNull();
    expect(ruleSetProblem({ ...defaultRuleSet(), returnPeriods: [{ family: 'Poaceae', years: 2 }, { family: ' poaceae', years: 3 }] })).toBe('poaceae has two return periods');
    expect(ruleSetProblem({ ...defaultRuleSet(), custom: { exemptBelowHa: 10, minCrops: 2, mainMax: 0.8, twoMainMax: 0.7 } })).toMatch(/cannot be below/);
  });
});
