// The name and farm of a parcel about to be saved (drawn, or a hectare point), with Save and Discard.
import { useEffect, useState, type FormEvent } from 'react';
import type { ParcelFeature } from '../core/api.ts';
import { say, set, stopDrawing, useApp } from './store.ts';
import { hectares } from './states.ts';
import { useBrowse } from './features/browse-store.ts';
import { focusSoon, savedParcel } from './features/focus/focus-soon.ts';
import { openPanel } from './panels.ts';

/**
 * `focusName`: the name field takes the focus, its text selected, when the form appears (a polygon just finished).
 * `create` may save several parcels (a polygon split into its parts), `saveLabel` then saying so.
 */
export function NewParcelForm({ refused, create, focusName = false, saveLabel = 'Save parcel' }: {
  refused: boolean; create(farm: string, name: string): Promise<ParcelFeature | ParcelFeature[]>; focusName?: boolean; saveLabel?: string;
}) {
  const farms = useApp((s) => s.farms);
  const farmId = useApp((s) => s.farmId);
  const [name, setName] = useState(() => `Parcel ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`);
  const [farm, setFarm] = useState(farmId ?? '');
  const [saving, setSaving] = useState(false);
  useEffect(() => { if (!farm && farmId) setFarm(farmId); }, [farm, farmId]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (refused || !farm || saving) return;
    setSaving(true);
    try {
      const made = await create(farm, name.trim() || 'Parcel');
      const all = Array.isArray(made) ? made : [made];
      stopDrawing();
      set({ selectedId: all[0]?.id ?? null });
      // The form goes with the drawing: the focus goes to the saved parcel, not the page's body.
      if (all[0]) focusSoon(savedParcel(all[0].id));
      // A metadata filter naming a key the new parcel has not hides it from the map the moment it is saved.
      const hidden = all.some((p) => Object.keys(useBrowse.getState().filter).some((k) => !Object.hasOwn(p.properties.metadata ?? {}, k)));
      const what = all.map((p) => `${p.properties.name} (${hectares(p.properties.hectares)})`).join(' and ');
      say(`Saved ${what}: ${all.length > 1 ? 'they are' : 'it is'} sent at the next sync.${hidden ? ` The metadata filter hides ${all.length > 1 ? 'them' : 'it'} from the map: Clear filter to see ${all.length > 1 ? 'them' : 'it'}.` : ''}`);
    } catch (err) {
      say(`Not saved: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form onSubmit={(e) => void save(e)} aria-label="New parcel">
      <label>Name <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} required autoFocus={focusName}
        onFocus={(e) => e.target.select()} /></label>
      {farms.length ? (
        <label>Farm
          <select value={farm} onChange={(e) => setFarm(e.target.value)} required>
            {farms.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
          </select>
        </label>
      ) : (
        // A parcel belongs to a farm: an account without one (just created) says so, with the way to make one; the
        // drawing stays, and Save takes the new farm once it is there.
        <p className="no-farm" id="new-parcel-no-farm" role="status">
          Create a farm first: a parcel is saved into a farm, and this account has none yet.{' '}
          <button type="button" onClick={() => openPanel('create-farm')}>Create a farm</button>
        </p>
      )}
      <div className="buttons">
        <button type="submit" disabled={refused || !farm || saving} aria-describedby={farms.length ? undefined : 'new-parcel-no-farm'}>{saveLabel}</button>
        <button type="button" onClick={stopDrawing}>Discard</button>
      </div>
    </form>
  );
}
