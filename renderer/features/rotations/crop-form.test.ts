import { describe, expect, it } from 'vitest';
import { cropWarnings, draftOf, emptyCrop, nextCampaign, readCrop } from './crop-form.ts';
import type { RotationCrop } from '../../../core/api.ts';

const families = [{ id: 3, name: 'Poaceae' }, { id: 4, name: 'Fabaceae' }];

describe('the crop form', () => {
  it('reads a crop as the backend takes it: blanks are none, a known family by its id, another by its name', () => {
    const r = readCrop({ ...emptyCrop('2025/26'), name: ' Durum wheat ', family: 'poaceae', sowing: '2025-11-10', closure: '2026-06-20', harvestedQty: '4,5', area: '12' }, families);
    expect(r).toEqual({ crop: { campaign: '2025/26', name: 'Durum wheat', variety: null, family: { id: 3 }, sowing: '2025-11-10', closure: '2026-06-20', harvestedQty: 4.5, area: 12, active: true } });
    const n = readCrop({ ...emptyCrop(), name: 'Vetch', family: 'Vicieae' }, families);
    expect('crop' in n && n.crop.family).toEqual({ name: 'Vicieae' });
    const none = readCrop(emptyCrop(), families);
    expect('crop' in none && none.crop).toEqual({ campaign: null, name: null, variety: null, family: null, sowing: null, closure: null, harvestedQty: null, area: null, active: true });
  });

  it("refuses what the service would, field by field, in the service's words", () => {
    const r = readCrop({ ...emptyCrop(), sowing: '2025-02-30', closure: '2024-01-01', harvestedQty: '-1', area: 'ten', name: 'x'.repeat(256) }, families);
    expect('problems' in r && r.problems).toEqual({
      sowing: 'Sowing must be a date written YYYY-MM-DD.',
      harvestedQty: 'The harvested quantity must be a number ≥ 0.',
      area: 'Type the area in hectares as a number, such as 2.5 or 2,5.',
      name: 'Name must be text of at most 255 characters.',
    });
    const before = readCrop({ ...emptyCrop(), sowing: '2025-10-01', closure: '2025-09-01' }, families);
    expect('problems' in before && before.problems.closure).toBe('Closure (2025-09-01) is before sowing (2025-10-01).');
    expect('problems' in readCrop({ ...emptyCrop(), family: 'f'.repeat(121) }, families)).toBe(true);
  });

  it('starts an edit from the crop as it is', () => {
    const crop = { id: 'c', parcel: 'p', serverId: 1, campaign: '2024/25', name: 'Barley', variety: null, family: { id: 3, name: 'Poaceae' }, sowing: '2024-11-01', closure: null, harvestedQty: 3.2, area: null, active: false, state: 'synced', reason: null, warnings: [] } as RotationCrop;
    expect(draftOf(crop)).toEqual({ campaign: '2024/25', name: 'Barley', variety: '', family: 'Poaceae', sowing: '2024-11-01', closure: '', harvestedQty: '3.2', area: '', active: false });
    expect(readCrop(draftOf(crop), families)).toEqual({ crop: { campaign: '2024/25', name: 'Barley', variety: null, family: { id: 3 }, sowing: '2024-11-01', closure: null, harvestedQty: 3.2, area: null, active: false } });
  });

  it('proposes the campaign after the newest one', () => {
    expect(nextCampaign('2024/25')).toBe('2025/26');
    expect(nextCampaign('2099/00')).toBe('2100/01');
    expect(nextCampaign('2025/2026')).toBe('2026/2027');
    expect(nextCampaign('2024')).toBe('2025');
    expect(nextCampaign('Spring 2024')).toBe('');
  });

  it('warns, without refusing, of an area larger than the parcel and of another crop still active', () => {
    const others = [{ name: 'Durum wheat', campaign: '2025/2026', active: true }, { name: 'Chickpea', campaign: '2024/2025', active: false }];
    expect(cropWarnings({ ...emptyCrop(), area: '50' }, 22.77, [])).toEqual(['The area (50 ha) is larger than the parcel (22.77 ha).']);
    expect(cropWarnings({ ...emptyCrop(), area: '22,77' }, 22.77, [])).toEqual([]);
    expect(cropWarnings(emptyCrop(), 22.77, others)).toEqual(['Durum wheat 2025/2026 is active on this parcel: one crop is active at a time, so saving asks whether to close it.']);
    expect(cropWarnings({ ...emptyCrop(), active: false }, 22.77, others)).toEqual([]);
  });
});
