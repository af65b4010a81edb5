import { describe, expect, it } from 'vitest';
import { STATES, stateColor } from '../../states.ts';
import { contrastRatio, labelText, MAP_BACKGROUND, stateMark, STATE_LEGEND } from './state-marks.ts';

describe('sync states told apart without colour', () => {
  it('gives every state a different mark: dash, hatch and symbol together', () => {
    const signatures = STATES.map((s) => JSON.stringify(stateMark(s.state)));
    expect(new Set(signatures).size).toBe(STATES.length);
  });

  it('keeps Synced plain, dashes Pending, hatches Rejected with a cross and marks Conflict its own way', () => {
    expect(stateMark('synced')).toEqual({ dash: null, hatch: null, symbol: null });
    expect(stateMark('pending').dash).not.toBeNull();
    expect(stateMark('rejected')).toMatchObject({ hatch: 'diagonal', symbol: '×' });
    expect(stateMark('conflict').symbol).not.toBe(stateMark('rejected').symbol);
    expect(stateMark('conflict').hatch).not.toBe(stateMark('rejected').hatch);
  });

  it('draws every outline at 3:1 or more against the map (WCAG 1.4.11), Pending too', () => {
    for (const s of STATES) expect(contrastRatio(stateColor(s.state), MAP_BACKGROUND), s.state).toBeGreaterThanOrEqual(3);
    // The orange it had: 2.12:1.
    expect(contrastRatio('#e69500', MAP_BACKGROUND)).toBeLessThan(3);
  });

  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('puts the state\'s symbol before a name on the map', () => {
    expect(labelText('rejected', 'Olivar A')).toBe('× Olivar A');
    expect(labelText('synced', 'Olivar A')).toBe('Olivar A');
    expect(labelText('pending', 'Olivar A')).toBe('Olivar A');
  });

  it('lists in the legend each state with the marks the map draws', () => {
    expect(STATE_LEGEND.map((s) => s.state)).toEqual(STATES.map((s) => s.state));
    for (const s of STATE_LEGEND) expect({ dash: s.dash, hatch: s.hatch, symbol: s.symbol }).toEqual(stateMark(s.state));
  });
});
