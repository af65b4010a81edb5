import { beforeEach, describe, expect, it } from 'vitest';
import { set, useApp } from '../../store.ts';
import { startMeasure, stopMeasure, toggleMeasure, useMeasure } from './measure-store.ts';

beforeEach(() => set({ mode: 'browse', draft: [], drawn: false, selectedId: null, message: null }));

describe('the Measure tool', () => {
  it('starts from browsing with nothing selected, in the kind last chosen, and stops back to browsing', () => {
    set({ selectedId: 'p-1' });
    startMeasure('area');
    expect(useApp.getState()).toMatchObject({ mode: 'measure', selectedId: null });
    expect(useMeasure.getState()).toMatchObject({ kind: 'area', points: [], done: false });
    toggleMeasure();
    expect(useApp.getState().mode).toBe('browse');
    toggleMeasure();
    expect(useMeasure.getState().kind).toBe('area');
    stopMeasure();
    expect(useApp.getState().mode).toBe('browse');
  });

  it('never throws away a polygon half drawn: the key says why it waits', () => {
    set({ mode: 'draw', draft: [[1, 2], [3, 4]] });
    toggleMeasure();
    expect(useApp.getState()).toMatchObject({ mode: 'draw', draft: [[1, 2], [3, 4]] });
    expect(useApp.getState().message?.text).toMatch(/^Finish or cancel drawing first/);
    set({ mode: 'modify' });
    toggleMeasure();
    expect(useApp.getState().message?.text).toMatch(/^Finish or cancel modifying the parcel first/);
  });
});
