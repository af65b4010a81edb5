// The account's farms with their parcel counts and hectares; choosing one makes it the farm new parcels go to and
// fits the map to it. Below, the list of a farm's parcels (features/parcel-list/).
import { set, useApp } from './store.ts';
import { hectares, stateColor, stateLabel } from './states.ts';
import { CreateFarmForm } from './features/farms/CreateFarmForm.tsx';
import { setRotations } from './features/rotations/rotation-store.ts';
import { ExportButtons } from './features/export/ExportButtons.tsx';
import { ParcelList } from './features/parcel-list/ParcelList.tsx';
import { keyHint, useKeyName } from './keymap.ts';
import { useEffect, useState } from 'react';
import { parcelsDrawn } from './features/map/first-paint.ts';

/**
 * Rows drawn before the map's first parcels are: the rest once they are on screen (or after FULL_LIST_WAIT_MS). An
 * account of 2,000 farms took 400 ms of the page's thread to lay its list out, just as the map's first answer came.
 */
const FIRST_ROWS = 100;
const FULL_LIST_WAIT_MS = 5000;

export function FarmsList() {
  const farms = useApp((s) => s.farms);
  const farmId = useApp((s) => s.farmId);
  const rotationKey = useKeyName('rotation');
  const [whole, setWhole] = useState(false);
  const long = farms.length > FIRST_ROWS && !whole;
  useEffect(() => {
    if (!long) return;
    let live = true;
    void parcelsDrawn(FULL_LIST_WAIT_MS).then(() => { if (live) setWhole(true); });
    return () => { live = false; };
  }, [long]);
  // The chosen farm is always among the rows drawn.
  const chosen = long && farmId ? farms.findIndex((f) => f.id === farmId) : -1;
  const rows = long ? farms.slice(0, Math.max(FIRST_ROWS, chosen + 1)) : farms;
  return (
    <section className="farms" aria-labelledby="farms-title">
      <div className="farms-head">
        <h2 id="farms-title">Farms</h2>
        <button type="button" className="rotation-open" disabled={!farmId} aria-keyshortcuts={rotationKey ?? undefined} title={`The chosen farm's crop rotation, parcels × campaigns${keyHint(rotationKey)}`}
          onClick={() => setRotations({ table: farmId })}>Crop rotation</button>
      </div>
      {farms.length === 0 ? <p className="muted">No farms yet.</p> : null}
      <ul>
        {rows.map((f) => (
          <li key={f.id}>
            <button type="button" className={f.id === farmId ? 'farm current' : 'farm'} data-farm={f.id} aria-pressed={f.id === farmId} title="Zoom to this farm; new parcels go to it"
              onClick={() => set((s) => ({ farmId: f.id, zoomTo: { farm: f.id, nonce: (s.zoomTo?.nonce ?? 0) + 1 } }))}>
              <span className="dot" style={{ background: stateColor(f.state) }} title={stateLabel(f.state)} />
              <span className="farm-name">{f.name}</span>
              <span className="farm-stats">{f.parcels} parcel{f.parcels === 1 ? '' : 's'} · {hectares(f.hectares)}</span>
            </button>
          </li>
        ))}
      </ul>
      <ParcelList />
      {farmId ? <ExportButtons farm={farmId} label={`the farm ${farms.find((f) => f.id === farmId)?.name ?? ''}`} /> : null}
      <CreateFarmForm />
    </section>
  );
}
