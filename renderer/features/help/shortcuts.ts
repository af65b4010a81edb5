// Every keyboard shortcut of the app, for the help panel (HelpPanel.tsx): one list, checked against the controls'
// own aria-keyshortcuts by test/keyboard-help.test.ts so that the help cannot forget a key a button announces.

import { DEFAULT_KEYS, keyName, type Keymap, type ShortcutId } from '../../keymap.ts';

export interface Shortcut {
  /** As aria-keyshortcuts spells it ("Control+Shift+Z"); several alternatives separated by spaces. */
  keys: string;
  what: string;
  /** A single key the user may remap or switch off (keymap.ts): `keys` is its default then. */
  id?: ShortcutId;
}

export const SHORTCUTS: { group: string; items: Shortcut[] }[] = [
  {
    group: 'Tools',
    items: [
      { id: 'draw', keys: 'D', what: 'Draw polygon (D again stops)' },
      { id: 'point', keys: 'P', what: 'Drop hectare point' },
      { id: 'modify', keys: 'M', what: 'Modify the selected parcel: move vertices, or the parcel whole' },
      { keys: 'Delete', what: 'Delete the selected parcel (asks first)' },
      { keys: 'Control+Z', what: 'Undo the last edit (while drawing: the last vertex)' },
      { keys: 'Control+Shift+Z', what: 'Redo' },
      { id: 'sync', keys: 'S', what: 'Sync now' },
      { id: 'import', keys: 'I', what: 'Import a GeoJSON, KML or zipped Shapefile: preview every feature, then import the valid ones (or drop the file on the map)' },
      { id: 'cockpit', keys: 'C', what: "Sync details: every account's queue, the next sync, what needs you" },
      { keys: 'Control+,', what: 'Settings: connected accounts, connect another service' },
      { id: 'accounts', keys: 'A', what: "Accounts: every account's state and token, create, switch, deactivate" },
    ],
  },
  {
    group: 'While drawing or modifying',
    items: [
      { keys: 'Enter', what: 'Finish the polygon, or save the modified shape' },
      { keys: 'Backspace', what: 'Take back the last vertex' },
      { keys: 'Escape', what: 'Leave the field you are typing in; again: cancel' },
      { keys: 'Tab', what: 'Reach the fields to type vertices as longitude, latitude' },
      { id: 'here', keys: 'V', what: 'Add a vertex at my position (averaged as Position sets)' },
    ],
  },
  {
    group: 'Browsing',
    items: [
      { id: 'search', keys: 'Control+F /', what: 'Search parcels by name or metadata value' },
      { id: 'zoom', keys: 'Z', what: 'Zoom to the selected parcel, else the chosen farm' },
      { id: 'farm', keys: 'N', what: 'Create a farm' },
      { id: 'plants', keys: 'T', what: 'Show or hide plants (at field scale)' },
      { id: 'table', keys: 'K', what: 'Attribute table: every parcel of the farm or the account as rows; sort, filter, select, bulk edit, export' },
      { id: 'rotation', keys: 'R', what: "Crop rotation table of the selected parcel's farm (else the chosen farm)" },
      { id: 'basemap', keys: 'B', what: 'Layers: basemaps and overlays' },
      { id: 'measure', keys: 'E', what: 'Measure a distance or an area, geodesic (E again or Esc stops; Enter finishes, Backspace takes back a vertex)' },
      { id: 'goto', keys: 'Control+G G', what: 'Go to coordinate: longitude, latitude; degrees, minutes, seconds; UTM; EPSG code and metres' },
      { id: 'position', keys: 'L', what: 'Position: connect a GNSS receiver (or the system\'s location), walk a boundary' },
      { id: 'follow', keys: 'F', what: 'Follow my position on the map (panning stops it)' },
      { id: 'help', keys: 'Shift+? F1', what: 'This list of keys' },
    ],
  },
  {
    group: 'On the map (once it has the focus) and in the list of parcels',
    items: [
      { keys: '] [', what: 'Select the next or previous parcel in view (north to south, west to east)' },
      { keys: 'Enter', what: 'On the map: open the selected parcel in the side panel. In the list: select the parcel, show it on the map' },
      { keys: 'ArrowUp ArrowDown', what: 'Move along the list of parcels (past its ends: the other pages); on the map: pan' },
      { keys: 'PageUp PageDown', what: "The list's previous or next page of parcels" },
    ],
  },
  {
    group: 'In the attribute table',
    items: [
      { keys: 'Shift+ArrowUp Shift+ArrowDown', what: 'Extend the selection of rows (Shift+click too; Ctrl+click or Space adds or takes one row)' },
      { keys: 'Control+A', what: 'Select every row shown (up to 100,000)' },
      { keys: 'Shift+Click', what: 'On the map, with the table open: add the parcel to the selection, or take it out' },
    ],
  },
];

/** "Control+Shift+Z" as people read it on a keyboard: "Ctrl+Shift+Z". */
export const keyLabel = (key: string): string =>
  key.replace(/Control/g, 'Ctrl').replace(/^Shift\+\?$/, '?').replace(/^Escape$/, 'Esc').replace(/^Arrow(Up|Down)$/, (_, d: string) => (d === 'Up' ? '↑' : '↓'));

/** The keys of `s` as the user has them now: a remapped single key in place of its default, gone when single keys are off. */
export function currentKeys(s: Shortcut, map: Keymap): string[] {
  const all = s.keys.split(' ');
  if (!s.id) return all;
  const aria = (k: string) => (k === '?' ? 'Shift+?' : k);
  const single = keyName(s.id, map);
  // Ctrl+F beside / and F1 beside ? stay: they are not single characters.
  return all.flatMap((k) => (k === aria(DEFAULT_KEYS[s.id!].toUpperCase()) ? (single ? [aria(single)] : []) : [k]));
}
