import { describe, expect, it } from 'vitest';
import type { Fix } from '../api-position.ts';
import { geodesicMetres, trackDecision } from './track-rule.ts';

const fix = (over: Partial<Fix> = {}): Fix => ({
  lon: 11.035, lat: 52.215, altitude: null, quality: 'rtk-fixed', satellites: 14, hdop: 0.6, accuracy: 0.02, heading: null, speed: null, time: '2026-11-29T09:00:00.000Z', received: 0, ...over,
});
/** `m` metres north of fix(): a degree of latitude is about 111.3 km there. */
const north = (m: number, over: Partial<Fix> = {}) => fix({ lat: 52.215 + m / 111_290, ...over });

describe('trackDecision', () => {
  it('measures geodesic metres', () => {
    expect(geodesicMetres(fix(), fix({ lat: 53.215 }))).toBeCloseTo(111_281, -1);
  });
  it('takes the first fix, then one minDistance away', () => {
    const s = { minDistance: 2, minInterval: 0, maxAccuracy: null };
    expect(trackDecision(null, fix(), s)).toBe('take');
    expect(trackDecision(fix(), north(1.9), s)).toBe('skip');
    expect(trackDecision(fix(), north(2.05), s)).toBe('take');
    expect(trackDecision(fix(), north(0, { received: 3_600_000 }), s)).toBe('skip');
  });
  it('or minInterval seconds later; both 0 takes every fix', () => {
    const s = { minDistance: 5, minInterval: 2, maxAccuracy: null };
    expect(trackDecision(fix(), north(0.1, { received: 1999 }), s)).toBe('skip');
    expect(trackDecision(fix(), north(0.1, { received: 2000 }), s)).toBe('take');
    expect(trackDecision(fix(), fix(), { minDistance: 0, minInterval: 0, maxAccuracy: null })).toBe('take');
  });
  it('drops a fix worse than the threshold, or of unknown accuracy', () => {
    const s = { minDistance: 0, minInterval: 0, maxAccuracy: 0.5 };
    expect(trackDecision(null, fix({ accuracy: 0.6 }), s)).toBe('drop');
    expect(trackDecision(null, fix({ accuracy: null }), s)).toBe('drop');
    expect(trackDecision(null, fix({ accuracy: 0.5 }), s)).toBe('take');
  });
});
