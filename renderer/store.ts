// The app's state as plain data (ids, modes, numbers, coordinates): never OpenLayers objects or the client, which
// live in the components and hooks that own them (renderer/MapView.tsx, the features' map hooks such as
// features/draw/) and in renderer/backend.ts.
import { create } from 'zustand';
import type { AccountSummary, FarmSummary, SyncProgress } from '../core/api.ts';

/** 'modify': a parcel's shape being changed (renderer/features/edit/); 'measure': lengths and areas (features/measure/). */
export type Mode = 'browse' | 'draw' | 'point' | 'modify' | 'measure';
export type Position2 = [number, number];

/**
 * What the keyboard asks of the polygon being drawn (renderer/features/coordinates/): a vertex typed instead of
 * clicked, the last one taken back, the polygon finished. The map's Draw carries it out.
 */
export type DraftCommand = { op: 'add'; pos: Position2 } | { op: 'undo' } | { op: 'finish' };

/**
 * Whether the service answered the last time the app asked (a sync): unknown until the first one ends; 'silent': it
 * accepts connections and gives no answer within the client's timeout (hung, overloaded).
 */
export type Connection = 'unknown' | 'online' | 'offline' | 'silent';

export interface AppState {
  accounts: AccountSummary[];
  /** The account shown: one at a time. */
  account: AccountSummary | null;
  farms: FarmSummary[];
  /** The farm new parcels go to, and the one highlighted in the list. */
  farmId: string | null;
  selectedId: string | null;
  /** Asks the map to fit a farm's parcels (nonce: the same farm asked again). */
  zoomTo: { farm: string; nonce: number } | null;
  mode: Mode;
  /** The polygon being drawn, [lon, lat] without the closing vertex; `drawn`: finished and waiting to be saved. */
  draft: Position2[];
  drawn: boolean;
  /** The last keyboard command for the draft, numbered (`n`) so that the same command given twice is two. */
  draftCommand: (DraftCommand & { n: number }) | null;
  /** Drop hectare point: where it was clicked ([lon, lat]) and the hectares typed. */
  point: Position2 | null;
  pointHectares: number;
  /** Bumped on every change event of the account: what is shown is read again. */
  version: number;
  /** The parcels drawn: `count` read exactly (`truncated`: more in view); `all`: the view's every parcel, from the tiles. */
  shown: { count: number; truncated: boolean; all?: boolean };
  history: { undo: string | null; redo: string | null };
  sync: SyncProgress | null;
  syncing: boolean;
  connection: Connection;
  /** The last thing the app has to tell (a sync's outcome, a refusal), for the status line. */
  message: { text: string; error: boolean } | null;
  /** The app's backend gone (it stopped): why, and whether this page gets back in by itself once it is back. */
  backendLost: { reason: string; reconnecting: boolean } | null;
}

const initial: AppState = {
  accounts: [], account: null, farms: [], farmId: null, selectedId: null, zoomTo: null, mode: 'browse', draft: [], drawn: false, draftCommand: null, point: null, pointHectares: 5, version: 0,
  shown: { count: 0, truncated: false }, history: { undo: null, redo: null }, sync: null, syncing: false, connection: 'unknown',
  message: null, backendLost: null,
};

export const useApp = create<AppState>(() => initial);

export const set = useApp.setState;
export const say = (text: string, error = false) => set({ message: { text, error } });
export const startDrawing = () => set({ mode: 'draw', draft: [], drawn: false, point: null, selectedId: null });
export const startPoint = () => set({ mode: 'point', draft: [], drawn: false, point: null, selectedId: null });
export const commandDraft = (c: DraftCommand) => set((s) => ({ draftCommand: { ...c, n: (s.draftCommand?.n ?? 0) + 1 } }));
/** Leaves drawing or dropping a point: what was not saved is dropped. */
export const stopDrawing = () => set({ mode: 'browse', draft: [], drawn: false, point: null });

/** Shows another account: what was selected or drawn belongs to the one left. */
export const chooseAccount = (account: AccountSummary | null) =>
  set((s) => ({ account, farms: [], farmId: null, selectedId: null, mode: 'browse', draft: [], drawn: false, point: null, zoomTo: null, version: s.version + 1, connection: 'unknown', message: null }));

/** The farm with the most parcels: where the app opens, and where new parcels go unless another is chosen. */
export const largestFarm = (farms: readonly FarmSummary[]): string | null =>
  farms.reduce<FarmSummary | null>((best, f) => (!best || f.parcels > best.parcels ? f : best), null)?.id ?? null;
