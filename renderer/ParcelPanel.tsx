// The side panel: the parcel selected on the map (name, hectares, farm, sync state and why), or, while drawing, the
// live area of the polygon and, once finished, its name and farm before it is saved; or the hectare point's square.
import { useEffect, useState } from 'react';
import type { ParcelFeature } from '../core/api.ts';
import { useApi } from './context.ts';
import { set, useApp } from './store.ts';
import { NewParcelForm } from './NewParcelForm.tsx';
import { draftHectares, draftProblems, hectaresProblem, parseHectares, pointPreview } from './preview.ts';
import { hectares, stateColor, stateLabel } from './states.ts';
import { ZoomToParcel } from './features/zoom/ZoomToParcel.tsx';
import { shapeGeometry } from './features/edit/shape.ts';
import { ModifyPanel } from './features/edit/ModifyPanel.tsx';
import { ParcelEditor } from './features/edit/ParcelEditor.tsx';
import { ConflictPanel } from './features/conflicts/ConflictPanel.tsx';
import { PointAt, VertexEntry } from './features/coordinates/VertexEntry.tsx';
import { RotationTimeline } from './features/rotations/RotationTimeline.tsx';
import { ParcelPlants } from './features/plants/ParcelPlants.tsx';
import { ExportButtons } from './features/export/ExportButtons.tsx';
import { announce, useAnnounce } from './features/focus/announce.ts';
import { DraftFix, createParts } from './features/draw/DraftFix.tsx';
import { useSplit } from './features/draw/fix-store.ts';
import { AddAtPosition } from './features/position/AddAtPosition.tsx';
import { afterDraftSaved, draftMetadata } from './features/position/position-actions.ts';

/** States whose reason needs the user; a pending parcel's last network failure is only a wait, not an error. */
const NEEDS_USER = new Set(['rejected', 'conflict', 'blocked']);

export function ParcelPanel() {
  const mode = useApp((s) => s.mode);
  // Drawing, placing a point or modifying begins: the side column starts at its heading (the area, the limit), not
  // where the parcel's details were scrolled to.
  useEffect(() => { if (mode !== 'browse') document.querySelector('.side')?.scrollTo({ top: 0 }); }, [mode]);
  return <section className="panel" aria-labelledby="panel-title" tabIndex={-1}>{mode === 'draw' ? <DraftPanel /> : mode === 'point' ? <PointPanel /> : mode === 'modify' ? <ModifyPanel /> : <SelectedParcel />}</section>;
}

function SelectedParcel() {
  const api = useApi();
  const id = useApp((s) => s.selectedId);
  const version = useApp((s) => s.version);
  const farms = useApp((s) => s.farms);
  const [parcel, setParcel] = useState<ParcelFeature | null>(null);
  // Said once per parcel selected (not at each edit of it): the screen reader hears what the map's click chose.
  const said = parcel ? `Selected ${parcel.properties.name}, ${hectares(parcel.properties.hectares)}, ${stateLabel(parcel.properties.state)}.` : null;
  // Unless the map's keys just said it, with its place among those in view (features/parcel-list/useMapKeys.ts).
  useEffect(() => { if (said && !useAnnounce.getState().text.startsWith(`${parcel!.properties.name},`)) announce(said); }, [parcel?.id]);
  // Another parcel chosen: the side column starts at its name again, not where the last one was scrolled to.
  useEffect(() => { if (id) document.querySelector('.side')?.scrollTo({ top: 0 }); }, [id]);
  useEffect(() => {
    let live = true;
    if (!id) { setParcel(null); return; }
    api.parcel({ id }).then((p) => { if (live) setParcel(p); }, () => { if (live) { setParcel(null); set({ selectedId: null }); } });
    return () => { live = false; };
  }, [api, id, version]);
  if (!id || !parcel) {
    // Focusable too: a parcel deleted from its heading leaves the focus here, not on the page's body.
    return (<><h2 id="panel-title" tabIndex={-1}>Parcel</h2><p className="muted">Click a parcel on the map to see it (or choose it in the list of the farm&apos;s parcels below, or with ] on the map), or draw one (D).</p></>);
  }
  const p = parcel.properties;
  return (
    <>
      {/* Focused after the parcel is saved (features/focus/focus-soon.ts): a screen reader reads the saved parcel. */}
      <h2 id="panel-title" tabIndex={-1} data-parcel={parcel.id}>Parcel</h2>
      <dl className="facts" aria-label="Selected parcel">
        <dt>Name</dt><dd data-field="name">{p.name}</dd>
        <dt>Area</dt><dd data-field="hectares">{hectares(p.hectares)}</dd>
        <dt>Farm</dt><dd data-field="farm">{farms.find((f) => f.id === p.farm)?.name ?? '—'}</dd>
        <dt>Sync state</dt>
        <dd data-field="state"><span className="dot" style={{ background: stateColor(p.state) }} />{stateLabel(p.state)}</dd>
        {p.reason && NEEDS_USER.has(p.state) ? (<><dt>Reason</dt><dd data-field="reason" className="error">{p.reason}</dd></>) : null}
        {p.reason && !NEEDS_USER.has(p.state) ? (<><dt>Reason</dt><dd data-field="reason" className="muted" title={p.reason}>Waiting for the service</dd></>) : null}
      </dl>
      <ConflictPanel parcel={parcel} />
      <div className="parcel-actions">
        <ZoomToParcel id={parcel.id} />
        <ExportButtons parcel={parcel.id} label="this parcel" />
      </div>
      <ParcelEditor key={`${parcel.id}|${p.name}|${JSON.stringify(p.metadata)}`} parcel={parcel} />
      <ParcelPlants key={`plants-${parcel.id}`} parcel={parcel} />
      <RotationTimeline key={parcel.id} parcel={parcel} />
    </>
  );
}

function DraftPanel() {
  const api = useApi();
  const ring = useApp((s) => s.draft);
  const drawn = useApp((s) => s.drawn);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);
  const ha = draftHectares(ring);
  const over = ha > limit;
  const problems = draftProblems(ring);
  // A polygon that crosses itself, split by the user into its valid parts (features/draw/DraftFix.tsx).
  const split = useSplit();
  return (
    <>
      <h2 id="panel-title">{drawn ? 'New parcel' : 'Drawing a parcel'}</h2>
      <p className={over ? 'area error' : 'area'}>
        {/* A shape that crosses itself has no area of its own (its loops cancel out): none is shown, not "0.00 ha". */}
        {/* Split into its parts, it is their area: the shape no longer "crosses itself" once the user chose to split it. */}
        Area <output aria-label="Drawn area" data-field="draft-hectares">{split ? `${hectares(split.reduce((n, p) => n + draftHectares(p), 0))} in ${split.length} parcels`
          : problems.some((p) => p.includes('crosses or touches itself')) ? 'none while it crosses itself' : hectares(ha)}</output>
        {over ? <span role="alert"> — above this account&apos;s limit of {hectares(limit)}: it cannot be saved.</span> : null}
      </p>
      {problems.length ? <DraftFix problems={problems} /> : null}
      {!drawn ? (
        <>
          <p className="muted">Click the map to add vertices, or type them below. Enter or a double-click finishes, Backspace removes the last vertex, Esc cancels.</p>
          <VertexEntry />
          <AddAtPosition />
        </>
      ) : (
        <NewParcelForm focusName refused={split ? false : over || problems.length > 0} saveLabel={split ? `Save ${split.length} parcels` : undefined}
          create={async (farm, name) => {
            if (split) return createParts(api, farm, name, split);
            // Vertices taken from the position keep their survey record in the parcel's metadata (features/position/).
            const metadata = draftMetadata(ring);
            const made = await api.createParcel({ farm, name, geometry: shapeGeometry([ring]), ...(metadata ? { metadata } : {}) });
            await afterDraftSaved(api);
            return made;
          }} />
      )}
    </>
  );
}

function PointPanel() {
  const api = useApi();
  const point = useApp((s) => s.point);
  const ha = useApp((s) => s.pointHectares);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);
  const [text, setText] = useState(String(ha));
  if (!point) {
    return (<><h2 id="panel-title">Drop a hectare point</h2><p className="muted">Click the map where the point goes, or type its position; Esc cancels.</p><PointAt /></>);
  }
  const typed = parseHectares(text);
  const { square, problems } = typed > 0 ? pointPreview(point, typed, limit)
    : { square: null, problems: [hectaresProblem(text, limit)!] };
  return (
    <>
      <h2 id="panel-title">New hectare point</h2>
      <label>Hectares{' '}
        {/* Focused and selected when the point is placed: typing "3" right after the click sets the hectares. */}
        <input type="text" inputMode="decimal" autoComplete="off" value={text} aria-invalid={problems.length > 0} aria-describedby="point-hectares-note" autoFocus onFocus={(e) => e.target.select()}
          onChange={(e) => { setText(e.target.value); const v = parseHectares(e.target.value); set({ pointHectares: v > 0 ? v : 0 }); }} />
      </label>
      {problems.length ? <p id="point-hectares-note" role="alert" className="error">{problems.join(' ')}</p>
        : <p id="point-hectares-note" className="muted">The square the service will make: {hectares(typed)} centred on {+point[0].toFixed(6)}, {+point[1].toFixed(6)}. Click elsewhere to move it.</p>}
      <PointAt />
      <NewParcelForm refused={!square} create={(farm, name) => api.createParcel({ farm, name, point, hectares: typed })} />
    </>
  );
}
