import { describe, expect, it } from 'vitest';
import type { Fix, Track } from '../../../core/api.ts';
import { DEFAULT_PREFS, readPrefs, setPosition, takeState, takeTrackPoint, usePosition } from './position-store.ts';

const fix = (received: number): Fix => ({ lon: 0, lat: 0, altitude: null, quality: 'gps', satellites: 8, hdop: 1, accuracy: 2, heading: null, speed: null, time: new Date(received).toISOString(), received });

describe('position store', () => {
  it('reads stored prefs as far as they are valid', () => {
    expect(readPrefs(null)).toEqual(DEFAULT_PREFS);
    expect(readPrefs({ threshold: null, averageN: 10, averageBy: 'seconds', tolerance: 99, form: { host: 'gnss.local', kind: 7 } })).toEqual({
      ...DEFAULT_PREFS, threshold: null, averageN: 10, averageBy: 'seconds', form: { ...DEFAULT_PREFS.form, host: 'gnss.local' },
    });
    expect(readPrefs({ threshold: -1 }).threshold).toBe(DEFAULT_PREFS.threshold);
  });

  it('adds each new fix once to an averaging under way, never a no-fix', () => {
    setPosition({ averaging: { fixes: [], started: 0 } });
    const st = (f: Fix) => ({ source: { kind: 'system' as const }, status: 'connected' as const, message: null, fix: f, inView: null });
    takeState(st(fix(1)));
    takeState(st(fix(1)));
    takeState(st({ ...fix(2), quality: 'none' }));
    takeState(st(fix(3)));
    expect(usePosition.getState().averaging!.fixes.map((f) => f.received)).toEqual([1, 3]);
    expect(usePosition.getState().state!.fix!.received).toBe(3);
  });

  it('appends the walk\'s next point only', () => {
    const track: Track = { id: 't1', account: 'a', farm: 'f', state: 'recording', settings: { minDistance: 1, minInterval: 0, maxAccuracy: null }, points: [], dropped: 0, started: '' };
    setPosition({ track });
    expect(takeTrackPoint({ track: 't1', index: 0, point: fix(1), dropped: 0 })).toBe(true);
    expect(takeTrackPoint({ track: 't1', index: 2, point: fix(2), dropped: 0 })).toBe(false);
    expect(takeTrackPoint({ track: 't2', index: 1, point: fix(2), dropped: 0 })).toBe(false);
    expect(takeTrackPoint({ track: 't1', index: 1, point: fix(3), dropped: 4 })).toBe(true);
    expect(usePosition.getState().track!.points).toHaveLength(2);
    expect(usePosition.getState().track!.dropped).toBe(4);
  });
});
