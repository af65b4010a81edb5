// The app's single-key shortcuts (D, P, S, /…) as one map the user can switch off or remap in Settings (WCAG 2.1.4:
// a speech-input user saying "delete" would otherwise type D, E, L… and draw, sync and import), kept in
// localStorage. And whether a modal panel is open: then no shortcut acts behind it (D started
// drawing behind the keyboard help). Every document listener asks here rather than comparing e.key itself.
import { create } from 'zustand';
import { isField } from './keys.ts';

export type ShortcutId = 'draw' | 'point' | 'modify' | 'sync' | 'import' | 'cockpit' | 'accounts' | 'search' | 'zoom' | 'farm' | 'plants' | 'rotation' | 'basemap' | 'measure' | 'goto' | 'help'
  | 'position' | 'here' | 'follow' | 'table';

/** The keys as shipped, lower case; the order is the Settings list's. */
export const DEFAULT_KEYS: Readonly<Record<ShortcutId, string>> = {
  draw: 'd', point: 'p', modify: 'm', sync: 's', import: 'i', cockpit: 'c', accounts: 'a',
  search: '/', zoom: 'z', farm: 'n', plants: 't', rotation: 'r', basemap: 'b', measure: 'e', goto: 'g', help: '?',
  // Where the user stands (features/position/): L the position panel, V a vertex at the position, F follow it.
  position: 'l', here: 'v', follow: 'f',
  // Every parcel as a table (features/table/): K, the letters a table's name would take being taken.
  table: 'k',
};
export const SHORTCUT_IDS = Object.keys(DEFAULT_KEYS) as ShortcutId[];

/** What each key does, as Settings lists them. */
export const SHORTCUT_NAMES: Readonly<Record<ShortcutId, string>> = {
  draw: 'Draw polygon', point: 'Drop hectare point', modify: 'Modify', sync: 'Sync now', import: 'Import', cockpit: 'Sync details',
  accounts: 'Accounts', search: 'Search', zoom: 'Zoom to parcel', farm: 'Create farm', plants: 'Plants', rotation: 'Crop rotation',
  basemap: 'Layers', measure: 'Measure', goto: 'Go to coordinate', help: 'Keyboard shortcuts',
  position: 'Position (GNSS receiver)', here: 'Vertex at my position', follow: 'Follow my position', table: 'Attribute table',
};

export interface Keymap { enabled: boolean; keys: Record<ShortcutId, string> }

/** Why `key` cannot be the key of `id` in `keys` (null: it can): one printable character, used by no other shortcut. */
export function keyProblem(keys: Readonly<Record<ShortcutId, string>>, id: ShortcutId, key: string): string | null {
  const k = key.toLowerCase();
  if ([...k].length !== 1 || !/^[\p{L}\p{N}\p{P}\p{S}]$/u.test(k)) return 'One letter, digit or symbol.';
  const other = SHORTCUT_IDS.find((o) => o !== id && keys[o] === k);
  return other ? `${k.toUpperCase()} is already the key of ${SHORTCUT_NAMES[other]}.` : null;
}

/** A stored keymap as far as it is still valid (a key edited by hand, or taken twice, is back to its default). */
export function readKeymap(stored: unknown): Keymap {
  const s = (stored && typeof stored === 'object' ? stored : {}) as { enabled?: unknown; keys?: Record<string, unknown> };
  const keys = { ...DEFAULT_KEYS };
  for (const id of SHORTCUT_IDS) {
    const k = s.keys?.[id];
    if (typeof k === 'string') keys[id] = k.toLowerCase();
  }
  for (const id of SHORTCUT_IDS) if (keyProblem(keys, id, keys[id])) keys[id] = DEFAULT_KEYS[id];
  // Defaults put back may now collide with a stored key: then every key goes back to its default.
  const clean = SHORTCUT_IDS.every((id) => keyProblem(keys, id, keys[id]) === null);
  return { enabled: s.enabled !== false, keys: clean ? keys : { ...DEFAULT_KEYS } };
}

const STORE = 'furrow-keymap';

function saved(): Keymap {
  try {
    return readKeymap(JSON.parse(localStorage.getItem(STORE) ?? 'null'));
  } catch {
    return readKeymap(null); // storage switched off or unreadable: the defaults
  }
}

export const useKeymap = create<Keymap>(saved);

/** Changes the keymap and remembers it (across restarts: the same origin's localStorage). */
export function setKeymap(patch: Partial<Keymap>): void {
  useKeymap.setState(patch);
  const { enabled, keys } = useKeymap.getState();
  try { localStorage.setItem(STORE, JSON.stringify({ enabled, keys })); } catch { /* used for this page only */ }
}

/** How many modal panels are open (features/focus/useDialogFocus.ts counts them). */
export const useModals = create<{ open: number }>(() => ({ open: 0 }));

/** A modal panel is open: the window's own keys (single keys, Delete, Ctrl+Z, F1…) wait; the panel's work. */
export const behindPanel = (): boolean => useModals.getState().open > 0;

/** A key press as the shortcuts read it. */
export interface KeyPress { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }

/**
 * Whether `e` is the single-key shortcut `id` in `map`: its key as mapped (Shift allowed: ? is Shift+/), no Ctrl, Alt
 * or Meta, single keys switched on, and no modal panel open.
 */
export const matchesShortcut = (e: KeyPress, id: ShortcutId, map: Keymap, panelOpen: boolean): boolean =>
  !e.ctrlKey && !e.metaKey && !e.altKey && !panelOpen && map.enabled && e.key.length === 1 && e.key.toLowerCase() === map.keys[id];

/** matchesShortcut for a press of the page, as the user mapped the keys now; never a key typed into a field. */
export const isShortcut = (e: KeyboardEvent, id: ShortcutId): boolean =>
  !isField(e.target) && matchesShortcut(e, id, useKeymap.getState(), behindPanel());

/** The key as aria-keyshortcuts and the tooltips say it ("D"), or null when single keys are off. */
export const keyName = (id: ShortcutId, map: Keymap = useKeymap.getState()): string | null => (map.enabled ? map.keys[id].toUpperCase() : null);

/** Reads the key of `id` for a component, following the user's changes. */
export const useKeyName = (id: ShortcutId): string | null => useKeymap((m) => keyName(id, m));

/** " (D)" after a tooltip's words, or nothing when single keys are off. */
export const keyHint = (key: string | null): string => (key ? ` (${key})` : '');
