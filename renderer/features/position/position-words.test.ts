import { describe, expect, it } from 'vitest';
import type { Fix, PositionState } from '../../../core/api.ts';
import { ageWords, fixKind, fixWords, metres, moving, statusWords } from './position-words.ts';

const fix = (over: Partial<Fix> = {}): Fix => ({
  lon: -4, lat: 37, altitude: 500, quality: 'rtk-fixed', satellites: 14, hdop: 0.7, accuracy: 0.02, heading: null, speed: 0,
  time: '2026-11-29T08:00:00Z', received: 1_000_000, ...over,
});
const state = (over: Partial<PositionState>): PositionState => ({ source: { kind: 'tcp', host: '127.0.0.1', port: 10110 }, status: 'connected', message: null, fix: null, inView: null, ...over });

describe('position words', () => {
  it('reads a fix as the readout shows it', () => {
    expect(fixWords(fix(), 1_001_000)).toBe('RTK fixed · 14 sats · HDOP 0.7 · ±0.02 m · 1 s ago');
    expect(fixWords(fix({ quality: 'gps', satellites: null, hdop: null, accuracy: 4.26 }), 1_000_000)).toBe('GPS · ±4.3 m · 0 s ago');
    expect(fixWords(null, 0)).toBe('No position yet');
  });

  it('tells a stale fix and no fix apart from a live one', () => {
    expect(fixKind(fix(), 1_004_999)).toBe('live');
    expect(fixKind(fix(), 1_005_001)).toBe('stale');
    expect(fixWords(fix(), 1_012_000)).toBe('Stale: RTK fixed · 14 sats · HDOP 0.7 · ±0.02 m · 12 s ago');
    expect(fixKind(fix({ quality: 'none' }), 1_000_000)).toBe('no-fix');
    expect(fixWords(fix({ quality: 'none', satellites: 3 }), 1_000_000)).toBe('No fix · 3 sats · HDOP 0.7 · 0 s ago');
    expect(fixKind(null, 0)).toBe('none');
  });

  it('says the connection and why it is reconnecting', () => {
    expect(statusWords(state({ status: 'connecting' }))).toBe('Connecting to TCP 127.0.0.1:10110…');
    expect(statusWords(state({}))).toBe('Connected to TCP 127.0.0.1:10110.');
    expect(statusWords(state({ status: 'reconnecting', message: 'The receiver stopped answering: trying again in 4 s' })))
      .toBe('Reconnecting to TCP 127.0.0.1:10110: The receiver stopped answering: trying again in 4 s');
    expect(statusWords(state({ status: 'failed', source: { kind: 'gpsd', host: 'localhost', port: 2947 }, message: 'refused' }))).toBe('Failed to connect to gpsd at localhost:2947: refused');
    expect(statusWords(state({ status: 'off', source: null }))).toBe('Not connected.');
  });

  it('words ages and metres, and draws a heading only when moving', () => {
    expect(ageWords(89_000)).toBe('89 s ago');
    expect(ageWords(600_000)).toBe('10 min ago');
    expect(metres(0.0234)).toBe('0.02 m');
    expect(metres(12.4)).toBe('12 m');
    expect(moving(fix({ heading: 90, speed: 1.2 }))).toBe(true);
    expect(moving(fix({ heading: 90, speed: 0.1 }))).toBe(false);
    expect(moving(fix({ heading: null, speed: 3 }))).toBe(false);
  });
});
