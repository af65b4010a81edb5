// What Modify, Save, Cancel and Delete do: backend calls (core/api.ts) whose outcome lands in the stores as plain
// data. Every change goes through the backend's edit history and outbox, so Undo and Redo take it back and forth.
import type { AppApi } from '../../backend.ts';
import { say, set, useApp } from '../../store.ts';
import { hectares } from '../../states.ts';
import { setEdit, useEdit } from './edit-store.ts';
import { openRings, sameShape, shapeGeometry, shapeHectares, shapeProblems } from './shape.ts';
import { focusSoon, savedParcel } from '../focus/focus-soon.ts';
import { modifiedMetadata } from '../position/position-actions.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Starts modifying the selected parcel: its shape as the mirror holds it. */
export async function startModify(api: AppApi): Promise<void> {
  const { selectedId, mode } = useApp.getState();
  if (!selectedId || mode !== 'browse') {
    if (!selectedId) say('Select a parcel on the map first, then Modify (M).', true);
    return;
  }
  try {
    const p = await api.parcel({ id: selectedId });
    const rings = openRings(p.geometry.coordinates);
    setEdit({ editing: { id: p.id, name: p.properties.name, point: p.properties.point !== null, original: rings }, rings, saving: false });
    set({ mode: 'modify' });
  } catch (err) {
    say(`Cannot modify it: ${why(err)}`, true);
  }
}

/** Leaves Modify; the shape shown goes back to the parcel's own (nothing was written). */
export function cancelModify(): void {
  setEdit({ editing: null, rings: [], saving: false });
  if (useApp.getState().mode === 'modify') set({ mode: 'browse' });
}

/** Whether the shape being modified can be saved now, and why not. */
export function modifyVerdict(): { changed: boolean; refused: string | null } {
  const { editing, rings } = useEdit.getState();
  if (!editing) return { changed: false, refused: 'Nothing is being modified.' };
  const limit = useApp.getState().account?.parcelLimit ?? Infinity;
  const problems = shapeProblems(rings);
  const changed = !sameShape(rings, editing.original);
  if (problems.length) return { changed, refused: problems.join(' ') };
  if (shapeHectares(rings) > limit) return { changed, refused: `above this account's limit of ${hectares(limit)}` };
  return { changed, refused: null };
}

/** Saves the modified shape (outer ring counter-clockwise); an unchanged shape just leaves Modify. */
export async function saveModify(api: AppApi): Promise<void> {
  const { editing, rings, saving } = useEdit.getState();
  if (!editing || saving) return;
  const { changed, refused } = modifyVerdict();
  if (refused) { say(`Not saved: ${refused}. Move the vertex back, or Esc to cancel.`, true); return; }
  if (!changed) { cancelModify(); say('The shape did not change: nothing to save.'); return; }
  setEdit({ saving: true });
  try {
    // The survey record of vertices from a position (features/position/) follows the shape: a vertex moved loses its own.
    const metadata = modifiedMetadata((await api.parcel({ id: editing.id })).properties.metadata, rings);
    const p = await api.updateParcel({ id: editing.id, geometry: shapeGeometry(rings), ...(metadata ? { metadata } : {}) });
    // Saved from the panel (a vertex field, Save) or with nothing focused: the panel's fields go, the focus goes to
    // the saved parcel's heading. Saved with Enter on the map, the map keeps it.
    const active = document.activeElement;
    const lost = !active || active === document.body || active.closest('.panel') !== null;
    cancelModify();
    set({ selectedId: p.id });
    if (lost) focusSoon(savedParcel(p.id), true);
    say(`Saved the new shape of ${p.properties.name} (${hectares(p.properties.hectares)}): it is sent at the next sync.`);
  } catch (err) {
    setEdit({ saving: false });
    say(`Not saved: ${why(err)}`, true);
  }
}

/** Asks for the delete confirmation of the selected parcel. */
export async function askDelete(api: AppApi): Promise<void> {
  const { selectedId, mode } = useApp.getState();
  if (!selectedId || mode !== 'browse') return;
  try {
    const p = await api.parcel({ id: selectedId });
    setEdit({ deleting: { id: p.id, name: p.properties.name, hectares: p.properties.hectares } });
  } catch (err) {
    say(`Cannot delete it: ${why(err)}`, true);
  }
}

export async function confirmDelete(api: AppApi): Promise<void> {
  const d = useEdit.getState().deleting;
  if (!d) return;
  setEdit({ deleting: null });
  try {
    // Where the confirmation gave the focus back (the Delete button, the parcel's heading) goes with the parcel:
    // the side panel's heading keeps it, not the page's body; the map, if it had it, keeps it.
    const active = document.activeElement;
    const lost = !active || active === document.body || active.closest('.toolbar, .panel') !== null;
    await api.deleteParcel({ id: d.id });
    if (useApp.getState().selectedId === d.id) set({ selectedId: null });
    if (lost) focusSoon('#panel-title', true);
    say(`Deleted ${d.name} (${hectares(d.hectares)}): Undo (Ctrl+Z) brings it back; the service deletes it at the next sync.`);
  } catch (err) {
    say(`Not deleted: ${why(err)}`, true);
  }
}
