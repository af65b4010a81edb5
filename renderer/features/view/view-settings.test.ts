import { describe, expect, it } from 'vitest';
import type { AccountSummary, ViewSettings } from '../../../core/api.ts';
import { currentView, restoreView, startAccount } from './view-settings.ts';
import { useApp } from '../../store.ts';
import { useBrowse } from '../browse-store.ts';
import { useRotations } from '../rotations/rotation-store.ts';

const acc = (id: string) => ({ id }) as AccountSummary;
const view = (o: Partial<ViewSettings>): ViewSettings => ({ account: 'b', farm: 'f2', colourBy: 'crop', filter: { certification: ['organic'] }, plants: true, basemap: 'https://tile.example.org/{z}/{x}/{y}.png', ...o });

describe('startAccount', () => {
  it('shows the account shown last while it is connected, else the launcher\'s, else the first', () => {
    const accounts = [acc('a'), acc('b'), acc('c')];
    expect(startAccount(accounts, view({}), 'c')?.id).toBe('b');
    expect(startAccount(accounts, view({ account: 'gone' }), 'c')?.id).toBe('c');
    expect(startAccount(accounts, null, null)?.id).toBe('a');
    expect(startAccount([], view({}), 'c')).toBeNull();
  });
});

describe('restoreView', () => {
  it("puts back the colouring and plants always, the farm and filter only for the account they were", () => {
    useApp.setState({ account: acc('b'), farmId: null });
    restoreView(view({}), 'b');
    expect(currentView()).toEqual(view({}));

    useApp.setState({ account: acc('c'), farmId: null });
    useBrowse.setState({ filter: {}, showPlants: false });
    useRotations.setState({ colourBy: 'state' });
    restoreView(view({ colourBy: 'family' }), 'c');
    expect(currentView()).toEqual({ account: 'c', farm: null, colourBy: 'family', filter: {}, plants: true, basemap: 'https://tile.example.org/{z}/{x}/{y}.png' });
  });

  it("writes back an older version's basemap as it was read, for the host to make a layer of", () => {
    restoreView(view({ basemap: 'https://tile.example.org/{z}/{x}/{y}.png' }), 'b');
    expect(currentView().basemap).toBe('https://tile.example.org/{z}/{x}/{y}.png');
    restoreView(view({ basemap: null }), 'b');
    expect(currentView().basemap).toBeNull();
  });

  it('changes nothing without saved choices', () => {
    useBrowse.setState({ filter: {}, showPlants: false });
    useRotations.setState({ colourBy: 'state' });
    restoreView(null, 'b');
    expect(useRotations.getState().colourBy).toBe('state');
    expect(useBrowse.getState().showPlants).toBe(false);
  });
});
