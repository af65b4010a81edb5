// Where the user stands, as plain data (issue 31): the host's last PositionState and the walk it keeps (both as the
// host's events bring them), whether the map follows the position, the panel open, the vertices of the shape being
// drawn or modified that were taken from the position (their survey records), an averaging under way, and the
// user's choices for this computer (page-local, in localStorage: the threshold, the averaging, a walk's settings and
// the last receiver typed). Never OpenLayers objects: the map's layer is usePositionLayer.ts's.
import { create } from 'zustand';
import type { Fix, PositionState, Track } from '../../../core/api.ts';
import type { SurveyVertex } from '../../../core/gnss/survey.ts';
import type { TakenVertex } from './at-position.ts';

export interface PositionPrefs {
  /** Vertices from a position worse than this (metres) need the user's word; null: any accuracy. */
  threshold: number | null;
  /** Averaging a vertex: over this many fixes, or seconds (1 fix: none). */
  averageBy: 'fixes' | 'seconds';
  averageN: number;
  /** A walk: a point every `minDistance` metres and/or `minInterval` seconds. */
  minDistance: number;
  minInterval: number;
  /** How far simplifying a walk may change its area, percent. */
  tolerance: number;
  /** The last source typed in the panel, to fill it again. */
  form: { kind: string; host: string; port: string; baud: string; udpPort: string; gpsdHost: string; gpsdPort: string };
}

export const DEFAULT_PREFS: PositionPrefs = {
  threshold: 5, averageBy: 'fixes', averageN: 1, minDistance: 1, minInterval: 0, tolerance: 0.5,
  form: { kind: 'tcp', host: '127.0.0.1', port: '10110', baud: '9600', udpPort: '10110', gpsdHost: '127.0.0.1', gpsdPort: '2947' },
};

const num = (v: unknown, min: number, max: number, dflt: number): number => (typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : dflt);

/** Stored prefs as far as they are valid; the rest the defaults. */
export function readPrefs(stored: unknown): PositionPrefs {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const form = (s.form && typeof s.form === 'object' ? s.form : {}) as Record<string, unknown>;
  return {
    threshold: s.threshold === null ? null : num(s.threshold, 0.001, 1000, DEFAULT_PREFS.threshold!),
    averageBy: s.averageBy === 'seconds' ? 'seconds' : 'fixes',
    averageN: Math.round(num(s.averageN, 1, 600, DEFAULT_PREFS.averageN)),
    minDistance: num(s.minDistance, 0, 1000, DEFAULT_PREFS.minDistance),
    minInterval: num(s.minInterval, 0, 3600, DEFAULT_PREFS.minInterval),
    tolerance: num(s.tolerance, 0, 10, DEFAULT_PREFS.tolerance),
    form: Object.fromEntries(Object.entries(DEFAULT_PREFS.form).map(([k, d]) => [k, typeof form[k] === 'string' ? form[k] : d])) as PositionPrefs['form'],
  };
}

const STORE = 'furrow-position';

function saved(): PositionPrefs {
  try { return readPrefs(JSON.parse(localStorage.getItem(STORE) ?? 'null')); } catch { return readPrefs(null); }
}

export interface Averaging { fixes: Fix[]; started: number }

export interface PositionStore {
  state: PositionState | null;
  track: Track | null;
  follow: boolean;
  open: boolean;
  prefs: PositionPrefs;
  /** Survey records of vertices taken from the position for the shape being drawn or modified. */
  survey: SurveyVertex[];
  /** The draft being drawn came from this walk: it is discarded once the parcel is saved. */
  fromWalk: string | null;
  averaging: Averaging | null;
  /** A vertex taken whose accuracy is worse than the threshold, waiting for the user's word. */
  pending: { vertex: TakenVertex; problem: string } | null;
}

export const usePosition = create<PositionStore>(() => ({ state: null, track: null, follow: true, open: false, prefs: saved(), survey: [], fromWalk: null, averaging: null, pending: null }));
export const setPosition = usePosition.setState;

export function setPrefs(patch: Partial<PositionPrefs>): void {
  setPosition((s) => ({ prefs: { ...s.prefs, ...patch } }));
  try { localStorage.setItem(STORE, JSON.stringify(usePosition.getState().prefs)); } catch { /* this page only */ }
}

/** A new fix from the host: kept, and added to an averaging under way (once: the same fix told twice is one). */
export function takeState(state: PositionState): void {
  setPosition((s) => {
    const f = state.fix;
    const a = s.averaging;
    const fresh = f && f.quality !== 'none' && a && !a.fixes.some((x) => x.received === f.received && x.time === f.time);
    return { state, ...(fresh ? { averaging: { ...a, fixes: [...a.fixes, f] } } : {}) };
  });
}

/** A point of the walk: appended when it is the next one; anything else (another walk, a gap) reads the walk again. */
export function takeTrackPoint(p: { track: string; index: number; point: Fix; dropped: number }): boolean {
  const t = usePosition.getState().track;
  if (!t || t.id !== p.track || p.index !== t.points.length) return false;
  setPosition({ track: { ...t, points: [...t.points, p.point], dropped: p.dropped } });
  return true;
}
