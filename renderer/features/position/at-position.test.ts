import { describe, expect, it } from 'vitest';
import type { Fix } from '../../../core/api.ts';
import { accuracyProblem, insertVertex, takeVertex } from './at-position.ts';

const fix = (lon: number, lat: number, over: Partial<Fix> = {}): Fix => ({
  lon, lat, altitude: null, quality: 'rtk-fixed', satellites: 14, hdop: 0.7, accuracy: 0.02, heading: null, speed: 0,
  time: '2026-11-29T08:00:00.000Z', received: 0, ...over,
});

describe('takeVertex', () => {
  it('one fix is its own position exactly, with its record', () => {
    const t = takeVertex([fix(-4.01234567891, 37.2)])!;
    expect(t.pos).toEqual([-4.01234567891, 37.2]);
    expect(t.survey).toEqual({ lon: -4.01234567891, lat: 37.2, quality: 'rtk-fixed', satellites: 14, hdop: 0.7, accuracy: 0.02, time: '2026-11-29T08:00:00.000Z' });
    expect(t.spread).toBe(0);
  });

  it('averages fixes, recording the worst of them and a spread wider than the claimed accuracy', () => {
    const d = 1e-5; // about 1.1 m in latitude
    const t = takeVertex([fix(0, 45 - d, { satellites: 9, hdop: 1.4 }), fix(0, 45 + d, { quality: 'rtk-float', time: '2026-11-29T08:00:05.000Z' })])!;
    expect(t.pos[1]).toBeCloseTo(45, 9);
    expect(t.count).toBe(2);
    expect(t.spread).toBeCloseTo(1.11, 2);
    expect(t.survey).toMatchObject({ quality: 'rtk-float', satellites: 9, hdop: 1.4, time: '2026-11-29T08:00:05.000Z' });
    expect(t.survey.accuracy).toBeCloseTo(t.spread, 9);
    expect(takeVertex([fix(0, 0, { accuracy: null }), fix(0, 0)])!.survey.accuracy).toBeNull();
    expect(takeVertex([])).toBeNull();
  });
});

describe('accuracyProblem', () => {
  it('passes within the threshold, asks beyond it or when unknown', () => {
    expect(accuracyProblem(0.5, 1)).toBeNull();
    expect(accuracyProblem(5, null)).toBeNull();
    expect(accuracyProblem(3.456, 1)).toBe('This position is accurate to ±3.46 m, worse than your threshold of 1 m.');
    expect(accuracyProblem(null, 1)).toMatch(/does not say how accurate/);
  });
});

describe('insertVertex', () => {
  it('goes onto the edge it lengthens least', () => {
    const sq: [number, number][] = [[0, 0], [0.001, 0], [0.001, 0.001], [0, 0.001]];
    expect(insertVertex(sq, [0.0011, 0.0005])).toEqual([[0, 0], [0.001, 0], [0.0011, 0.0005], [0.001, 0.001], [0, 0.001]]);
    // the closing edge, from the last vertex back to the first
    expect(insertVertex(sq, [-0.0001, 0.0005])).toEqual([...sq, [-0.0001, 0.0005]]);
    expect(insertVertex([], [1, 1])).toEqual([[1, 1]]);
  });
});
