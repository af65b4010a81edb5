import { describe, expect, it } from 'vitest';
import { fitView, mercator, scaleBar, sheetLayout } from './layout.ts';

describe('a printed sheet', () => {
  it('is A4 or A3, either way round, the frame between the heading and the legend', () => {
    const a4 = sheetLayout('A4', 'portrait');
    expect([a4.page.w, a4.page.h]).toEqual([595.28, 841.89]);
    const a3 = sheetLayout('A3', 'landscape');
    expect([a3.page.w, a3.page.h]).toEqual([1190.55, 841.89]);
    for (const s of [a4, a3]) {
      expect(s.frame.y).toBeGreaterThan(s.subtitle.y + s.subtitle.size);
      expect(s.legend.y).toBeGreaterThan(s.frame.y + s.frame.h);
      expect(s.legend.y + s.legend.h).toBeLessThanOrEqual(s.page.h);
      expect(s.scale.x).toBeGreaterThan(s.legend.x + s.legend.w);
      expect(s.north.x + s.north.w).toBeLessThanOrEqual(s.page.w - 27);
    }
  });

  it('fits a view inside the frame, middle on middle, north up', () => {
    const frame = { x: 10, y: 20, w: 400, h: 200 };
    const f = fitView([-5, 38, -4, 38.5], frame);
    expect(f.box.x).toBeGreaterThanOrEqual(frame.x - 1e-9);
    expect(f.box.x + f.box.w).toBeLessThanOrEqual(frame.x + frame.w + 1e-9);
    expect(f.box.y + f.box.h).toBeLessThanOrEqual(frame.y + frame.h + 1e-9);
    const [x, y] = f.at(-4.5, mercatorMidLat(38, 38.5));
    expect(x).toBeCloseTo(210, 6);
    expect(y).toBeCloseTo(120, 6);
    // North is up: a point further north is higher on the sheet.
    expect(f.at(-4.5, 38.4)[1]).toBeLessThan(f.at(-4.5, 38.1)[1]);
  });

  it('has a scale bar a round number of metres long, as long as it may be', () => {
    expect(scaleBar(10, 100)).toEqual({ metres: 1000, points: 100, label: '1 km' });
    expect(scaleBar(3, 100)).toMatchObject({ metres: 200, label: '200 m' });
    expect(scaleBar(7, 100).metres).toBe(500);
    expect(scaleBar(0.9, 100)).toMatchObject({ metres: 50, label: '50 m' });
    const b = scaleBar(1.234, 150);
    expect(b.points).toBeLessThanOrEqual(150);
    expect(b.points).toBeGreaterThan(150 / 2.5);
  });
});

/** The latitude whose Mercator y is the middle of two latitudes'. */
function mercatorMidLat(a: number, b: number): number {
  const y = (mercator(0, a)[1] + mercator(0, b)[1]) / 2;
  return (2 * Math.atan(Math.exp(y / 6_378_137)) - Math.PI / 2) * 180 / Math.PI;
}
