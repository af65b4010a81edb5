import { describe, expect, it } from 'vitest';
import { campaignSummary, currentCampaignYear, isPlannedCampaign, summaryCsv } from './campaign-summary.ts';

describe('the plan by time', () => {
  it('takes the newest campaign with a crop active or sown as current; later ones are planned', () => {
    const crops = [
      { campaign: '2024/2025', sowing: '2024-10-01', active: false },
      { campaign: '2025/2026', sowing: null, active: true },
      { campaign: '2027/2028', sowing: null, active: false },
    ];
    const current = currentCampaignYear(crops, '2026-11-29');
    expect(current).toBe(2025);
    expect(isPlannedCampaign('2026/2027', current)).toBe(true);
    expect(isPlannedCampaign('2025/2026', current)).toBe(false);
    expect(isPlannedCampaign('next', current)).toBe(false);
    expect(currentCampaignYear([{ campaign: '2030', sowing: null, active: false }], '2026-11-29')).toBe(2026);
  });
});

describe('campaign summary', () => {
  const parcels = [
    { id: 'a', name: 'A', hectares: 30, crops: [{ id: '1', name: 'Wheat', family: 'Poaceae', campaign: '2025/2026' }, { id: '2', name: 'Peas', family: 'Fabaceae', campaign: '2026/2027' }] },
    { id: 'b', name: 'B', hectares: 10, crops: [{ id: '3', name: 'Barley', family: 'Poaceae', campaign: '2025/2026' }, { id: '4', name: '=cmd', family: 'Fabaceae', campaign: '2026/2027' }, { id: '5', name: 'Peas', family: 'Fabaceae', campaign: '2026/2027' }] },
  ];
  it('sums area by crop and by family per campaign, a parcel shared among its crops', () => {
    const rows = campaignSummary(parcels, 2025);
    expect(rows.map((r) => [r.campaign, r.planned, r.by, r.name, r.hectares, r.share])).toEqual([
      ['2025/2026', false, 'crop', 'Wheat', 30, 0.75], ['2025/2026', false, 'crop', 'Barley', 10, 0.25], ['2025/2026', false, 'family', 'Poaceae', 40, 1],
      ['2026/2027', true, 'crop', 'Peas', 35, 0.875], ['2026/2027', true, 'crop', '=cmd', 5, 0.125], ['2026/2027', true, 'family', 'Fabaceae', 40, 1],
    ]);
  });
  it('writes CSV with a header, CRLF, and no formula', () => {
    const csv = summaryCsv(campaignSummary(parcels, 2025));
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('campaign,planned,by,name,family,hectares,share');
    expect(lines[1]).toBe('2025/2026,false,crop,Wheat,Poaceae,30.0000,0.7500');
    expect(lines[5]).toBe("2026/2027,true,crop,'=cmd,Fabaceae,5.0000,0.1250");
    expect(lines.at(-1)).toBe('');
  });
});
