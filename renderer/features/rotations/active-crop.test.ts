import { describe, expect, it } from 'vitest';
import { closing, cropTypeMismatch, localDate, type CropLike } from './active-crop.ts';

const crop = (o: Partial<CropLike>): CropLike => ({ id: 'c', name: 'Chickpea', campaign: '2025/2026', sowing: '2025-10-10', closure: null, active: true, ...o });

describe('closing', () => {
  it("ends every other active crop at the new one's sowing, or today without one", () => {
    const others = [crop({ id: 'a' }), crop({ id: 'b', name: 'Olive', active: false })];
    expect(closing(others, '2026-10-20', '2026-05-01')).toEqual([{ id: 'a', closure: '2026-10-20', label: 'Chickpea 2025/2026' }]);
    expect(closing(others, null, '2026-05-01')).toEqual([{ id: 'a', closure: '2026-05-01', label: 'Chickpea 2025/2026' }]);
  });

  it('keeps a closure the crop has, and never ends one before its sowing', () => {
    expect(closing([crop({ closure: '2026-07-01' })], '2026-10-20', '2026-05-01')[0]!.closure).toBe('2026-07-01');
    expect(closing([crop({ sowing: '2026-11-01' })], '2026-10-20', '2026-05-01')[0]!.closure).toBe('2026-11-01');
  });

  it('closes nothing when no other crop is active', () => {
    expect(closing([crop({ active: false })], null, '2026-05-01')).toEqual([]);
  });
});

describe('cropTypeMismatch', () => {
  it("tells the parcel's crop_type from its active crop when they differ (the trial's Chickpea and Lentil)", () => {
    const crops = [crop({ id: 'l', name: 'Lentil', campaign: '2026/2027' }), crop({ id: 'c', active: false })];
    expect(cropTypeMismatch({ crop_type: ' Chickpea ' }, crops)).toMatchObject({ cropType: 'Chickpea', crop: { id: 'l', name: 'Lentil' } });
  });

  it('says nothing when they agree (case and spaces aside), or either is missing', () => {
    expect(cropTypeMismatch({ crop_type: 'durum  WHEAT' }, [crop({ name: 'Durum wheat' })])).toBeNull();
    expect(cropTypeMismatch({}, [crop({})])).toBeNull();
    expect(cropTypeMismatch({ crop_type: 7 }, [crop({})])).toBeNull();
    expect(cropTypeMismatch({ crop_type: 'Lentil' }, [crop({ active: false })])).toBeNull();
    expect(cropTypeMismatch({ crop_type: 'Lentil' }, [crop({ name: null })])).toBeNull();
  });
});

describe('localDate', () => {
  it('writes the local date as YYYY-MM-DD', () => {
    expect(localDate(new Date(2026, 0, 5, 23, 30))).toBe('2026-01-05');
  });
});
