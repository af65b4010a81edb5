// The view's choices across restarts (core/api-view.ts): what the map is coloured by, its metadata filter, the plants
// layer, the account and farm shown (the map's layers are kept apart: features/layers/). Read from the host at the start, put back into the stores, then saved
// (after a moment's quiet, as one write) whenever one changes. The host keeps them in the mirror's settings: the page's own
// storage belongs to its origin, whose port may differ at the next start.
import type { AccountSummary, ViewSettings } from '../../../core/api.ts';
import type { AppApi } from '../../backend.ts';
import { set, useApp } from '../../store.ts';
import { useBrowse } from '../browse-store.ts';
import { setRotations, useRotations } from '../rotations/rotation-store.ts';

/**
 * How long the choices must rest before they are written: the start's burst of changes (the account, its farms) is
 * one write, and a choice is kept before the page can go (a reload right after it must not find the one before).
 */
const QUIET_MS = 50;

/**
 * The account to show at the start: the one shown last, while it is still connected; else the launcher's (`preferred`);
 * else the first.
 */
export function startAccount(accounts: readonly AccountSummary[], saved: ViewSettings | null, preferred: string | null): AccountSummary | null {
  return accounts.find((a) => a.id === saved?.account) ?? accounts.find((a) => a.id === preferred) ?? accounts[0] ?? null;
}

/**
 * The XYZ basemap of an older version's choices, written back as it was read: the host turns it into a layer the
 * first time the layers are read (backend/layers.ts), and a save of the view before that must not lose it.
 */
let legacyBasemap: string | null = null;

/** The choices as the stores hold them now. */
export function currentView(): ViewSettings {
  const { account, farmId } = useApp.getState();
  const { filter, showPlants, place } = useBrowse.getState();
  return {
    account: account?.id ?? null, farm: farmId, colourBy: useRotations.getState().colourBy, filter, plants: showPlants, basemap: legacyBasemap,
    ...(place ? { map: place } : {}),
  };
}

/**
 * Puts the saved choices back once `account` is shown: what the map is coloured by and the plants layer always; the
 * farm, the filter and where the map looked when they were that account's (a farm is chosen again only if the account
 * still has it; the map goes back there when that farm has no parcels to fit: MapView.tsx).
 */
export function restoreView(saved: ViewSettings | null, account: string | null): void {
  if (!saved) return;
  setRotations({ colourBy: saved.colourBy });
  const mine = account !== null && saved.account === account;
  useBrowse.setState({ showPlants: saved.plants, ...(mine ? { filter: saved.filter, place: saved.map ?? null } : {}) });
  if (mine && saved.farm) set({ farmId: saved.farm });
  legacyBasemap = saved.basemap;
}

/** Saves the choices whenever they change, until the answer is called. */
export function keepView(api: AppApi): () => void {
  let last = JSON.stringify(currentView());
  let timer: ReturnType<typeof setTimeout> | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const view = currentView();
      const json = JSON.stringify(view);
      if (json === last) return;
      last = json;
      api.saveViewSettings(view).catch(() => { last = ''; }); // not kept: tried again at the next change
    }, QUIET_MS);
  };
  const stops = [useApp.subscribe(changed), useBrowse.subscribe(changed), useRotations.subscribe(changed)];
  return () => { clearTimeout(timer); for (const stop of stops) stop(); };
}
