// The side panel: the parcel selected on the map (name, hectares, farm, sync state and why), or, while drawing, the
// live area of the polygon and, once finished, its name and farm before it is saved.
import { useEffect, useState, type FormEvent } from 'react';
import type { ParcelFeature } from '../core/api.ts';
import { useApi } from './context.ts';
import { draftHectares } from './MapView.tsx';
import { say, set, stopDrawing, useApp } from './store.ts';
import { hectares, stateColor, stateLabel } from './states.ts';

export function ParcelPanel() {
  const mode = useApp((s) => s.mode);
  return <section className="panel" aria-labelledby="panel-title">{mode === 'draw' ? <DraftPanel /> : <SelectedParcel />}</section>;
}

function SelectedParcel() {
  const api = useApi();
  const id = useApp((s) => s.selectedId);
  const version = useApp((s) => s.version);
  const farms = useApp((s) => s.farms);
  const [parcel, setParcel] = useState<ParcelFeature | null>(null);
  useEffect(() => {
    let live = true;
    if (!id) { setParcel(null); return; }
    api.parcel({ id }).then((p) => { if (live) setParcel(p); }, () => { if (live) { setParcel(null); set({ selectedId: null }); } });
    return () => { live = false; };
  }, [api, id, version]);
  if (!id || !parcel) {
    return (<><h2 id="panel-title">Parcel</h2><p className="muted">Click a parcel on the map to see it, or draw one (D).</p></>);
  }
  const p = parcel.properties;
  return (
    <>
      <h2 id="panel-title">Parcel</h2>
      <dl className="facts" aria-label="Selected parcel">
        <dt>Name</dt><dd data-field="name">{p.name}</dd>
        <dt>Area</dt><dd data-field="hectares">{hectares(p.hectares)}</dd>
        <dt>Farm</dt><dd data-field="farm">{farms.find((f) => f.id === p.farm)?.name ?? '—'}</dd>
        <dt>Sync state</dt>
        <dd data-field="state"><span className="dot" style={{ background: stateColor(p.state) }} />{stateLabel(p.state)}</dd>
        {p.reason ? (<><dt>Reason</dt><dd data-field="reason" className="error">{p.reason}</dd></>) : null}
      </dl>
    </>
  );
}

function DraftPanel() {
  const api = useApi();
  const ring = useApp((s) => s.draft);
  const drawn = useApp((s) => s.drawn);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);
  const farms = useApp((s) => s.farms);
  const farmId = useApp((s) => s.farmId);
  const [name, setName] = useState('');
  const [farm, setFarm] = useState(farmId ?? '');
  const [saving, setSaving] = useState(false);
  useEffect(() => { if (drawn) setName(`Parcel ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`); }, [drawn]);
  useEffect(() => { if (!farm && farmId) setFarm(farmId); }, [farm, farmId]);
  const ha = draftHectares(ring);
  const over = ha > limit;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (over || !farm || saving) return;
    setSaving(true);
    try {
      const created = await api.createParcel({ farm, name: name.trim() || 'Parcel', geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]!]] } });
      stopDrawing();
      set({ selectedId: created.id });
      say(`Saved ${created.properties.name} (${hectares(created.properties.hectares)}): it is sent at the next sync.`);
    } catch (err) {
      say(`Not saved: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <h2 id="panel-title">{drawn ? 'New parcel' : 'Drawing a parcel'}</h2>
      <p className={over ? 'area error' : 'area'}>
        Area <output aria-label="Drawn area" data-field="draft-hectares">{hectares(ha)}</output>
        {over ? <span role="alert"> — above this account&apos;s limit of {hectares(limit)}: it cannot be saved.</span> : null}
      </p>
      {!drawn ? (
        <p className="muted">Click the map to add vertices. Enter or a double-click finishes, Backspace removes the last vertex, Esc cancels.</p>
      ) : (
        <form onSubmit={(e) => void save(e)} aria-label="New parcel">
          <label>Name <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} required autoFocus /></label>
          <label>Farm
            <select value={farm} onChange={(e) => setFarm(e.target.value)} required>
              {farms.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
            </select>
          </label>
          <div className="buttons">
            <button type="submit" disabled={over || !farm || saving}>Save parcel</button>
            <button type="button" onClick={stopDrawing}>Discard</button>
          </div>
        </form>
      )}
    </>
  );
}
