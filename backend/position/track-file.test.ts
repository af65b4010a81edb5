// The walk's file: appended point by point, read back whole, a line cut by a crash left out, a file that is not a
// walk set aside rather than trusted.
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fix, Track } from '../../core/api-position.ts';
import { TrackFile } from './track-file.ts';
import { TrackRecorder } from './track-recorder.ts';

let home = '';
afterEach(() => { if (home) rmSync(home, { recursive: true, force: true }); });

const fix = (lat: number, received: number, accuracy = 0.02): Fix => ({
  lon: 11.035, lat, altitude: 81.3, quality: 'rtk-fixed', satellites: 14, hdop: 0.6, accuracy, heading: null, speed: null, time: new Date(received).toISOString(), received,
});

describe('the walk kept in FURROW_HOME', () => {
  it('is read back as it was recorded, drops and pauses included, and a cut last line is left out', () => {
    home = mkdtempSync(join(tmpdir(), 'furrow-track-'));
    const emitted: number[] = [];
    const r = new TrackRecorder(new TrackFile(home), (p) => emitted.push(p.index));
    const t = r.start('acc-1', 'farm-1', { minDistance: 1, minInterval: 0, maxAccuracy: 0.5 });
    r.fix(fix(52.215, 0));
    r.fix(fix(52.21501, 1000, 3)); // worse than 0.5 m: dropped
    r.fix(fix(52.215001, 2000)); // 11 cm: skipped
    r.fix(fix(52.21502, 3000));
    r.pause();
    r.fix(fix(52.2153, 4000)); // paused: not taken
    expect(emitted).toEqual([0, 1]);
    appendFileSync(join(home, 'track.jsonl'), '{"t":"point","p":{"lon":11.0'); // power lost mid-write
    const back = new TrackFile(home).read()!;
    expect(back).toEqual({ ...t, state: 'paused', dropped: 1, points: [fix(52.215, 0), fix(52.21502, 3000)] } satisfies Track);
    r.discard();
    expect(existsSync(join(home, 'track.jsonl'))).toBe(false);
    expect(new TrackFile(home).read()).toBeNull();
  });
  it('sets aside a file that is not a walk', () => {
    home = mkdtempSync(join(tmpdir(), 'furrow-track-'));
    writeFileSync(join(home, 'track.jsonl'), '{"t":"track","track":{"id":"x"}}\n');
    expect(new TrackFile(home).read()).toBeNull();
    expect(readdirSync(home).filter((f) => f.startsWith('track.jsonl.unreadable-'))).toHaveLength(1);
  });
});
