// The keys of drawing, apart from the listeners that carry them out (useDrawPolygon.ts, useDropPoint.ts), so that
// what each key does is tested without a browser.
import { isField } from '../../keys.ts';
import { stopDrawing } from '../../store.ts';
import { behindPanel } from '../../keymap.ts';

export type DrawKeyAction = 'finish' | 'abort' | 'undo';

export interface KeyPress { key: string; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }

/**
 * What a key does while a polygon is drawn, or null (the key is someone else's): Enter (or a double-click) finishes,
 * Esc cancels, Backspace or Ctrl+Z (as in desktop GIS: while drawing it takes back a vertex, not the last saved edit)
 * takes the last vertex back. `where`: whether the key was pressed in a form field (then it is the field's), whether
 * the target handles Enter itself (keys.ts ownsEnter), and the sketch's ring length: the vertices clicked and the one
 * following the pointer, so a polygon can finish from four (three vertices).
 */
export function drawKey(e: KeyPress, where: { inField: boolean; ownsEnter: boolean; ring: number }): DrawKeyAction | null {
  if (where.inField) return null;
  if (e.key === 'Enter') return !where.ownsEnter && where.ring >= 4 ? 'finish' : null;
  if (e.key === 'Escape') return 'abort';
  if (e.key === 'Backspace' || ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z')) return 'undo';
  return null;
}

/** Esc pressed in a form field: the field loses the focus and the key does nothing else (true). */
function leaveField(e: KeyboardEvent): boolean {
  const t = e.target;
  if (!isField(t)) return false;
  t.blur();
  return true;
}

/**
 * Esc while a shape waits to be saved (a finished polygon, a hectare point): it discards the shape — but Esc in a
 * field only leaves the field (a second Esc discards): people press Esc to get out of a field, and a drawn polygon
 * thrown away cannot be undone.
 */
export function escapeDiscards(e: KeyboardEvent): void {
  if (e.key !== 'Escape' || behindPanel()) return; // a panel's Esc closes the panel only
  e.preventDefault();
  if (!leaveField(e)) stopDrawing();
}
