import { afterEach, describe, expect, it } from 'vitest';
import Feature from 'ol/Feature.js';
import Point from 'ol/geom/Point.js';
import Polygon from 'ol/geom/Polygon.js';
import { fromLonLat } from 'ol/proj.js';
import type { AccountSummary } from '../../../core/api.ts';
import { set } from '../../store.ts';
import { draftStyle } from './draft-style.ts';

/** About 4 ha: 0.002° × 0.002° at 37° N (its closing vertex repeated, as Draw's sketch has it). */
const field = new Feature(new Polygon([[[-4.002, 37.2], [-4.0, 37.2], [-4.0, 37.202], [-4.002, 37.202], [-4.002, 37.2]].map((p) => fromLonLat(p))]));
const limitOf = (parcelLimit: number) => set({ account: { parcelLimit } as AccountSummary });

describe('the draft\'s style', () => {
  afterEach(() => set({ account: null }));

  it('is cyan within the account\'s limit', () => {
    limitOf(10);
    const stroke = draftStyle(field)!.getStroke()!;
    expect([stroke.getColor(), stroke.getLineDash()]).toEqual(['#0097a7', null]);
  });

  it('turns red and dashed above it, where saving would be refused', () => {
    limitOf(1);
    const stroke = draftStyle(field)!.getStroke()!;
    expect([stroke.getColor(), stroke.getLineDash()]).toEqual(['#d32f2f', [6, 4]]);
  });

  it('draws nothing but the polygon (Draw\'s sketch point and line)', () => {
    const s = draftStyle(new Feature(new Point([0, 0])))!;
    expect([s.getStroke(), s.getFill()]).toEqual([null, null]);
  });
});
