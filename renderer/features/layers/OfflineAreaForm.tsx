// Making an online layer's area available offline (issue 30), in its entry of the layers panel: the area kept (zooms,
// tiles, when, the tiles it lacks) with Update and Delete; a download running (progress, Pause, Cancel) or interrupted
// (where it stopped, Resume, Cancel, and — once only tiles that keep failing are left — keep the area without them);
// and "Keep offline…", the form choosing the area — the account's farms with a margin, the farm shown, the map's
// view, or a box drawn on the map (an OpenLayers DragBox, added in an effect and removed in its cleanup) — and the
// zooms, with the tile count and an estimate of the size before anything is downloaded, and the tile cap's refusal in
// words. The host downloads (core/api-offline.ts); the page names the layer and the area only.
import { useEffect, useId, useState, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import DragBox from 'ol/interaction/DragBox.js';
import { transformExtent } from 'ol/proj.js';
import type { MapLayer } from '../../../core/api-layers.ts';
import { DEFAULT_MARGIN_M, type OfflineAreaChoice, type OfflineEstimate } from '../../../core/api-offline.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { areaWords, BULK_WARNING, estimateWords, keepableWithout, pausedWords, progressWords } from './offline-words.ts';
import { cancelArea, downloadArea, keepWithout, pauseArea, refreshDownloads, resumeArea, updateArea, useOffline } from './offline-store.ts';
import './offline.css';

type AreaKind = 'farms' | 'farm' | 'view' | 'box';
type Box = [number, number, number, number];

const ONLINE = new Set(['xyz', 'wms', 'wmts']);
/** Coordinates as sent: six decimals (about 10 cm) are more than a tile needs. */
const round = (b: number[]): Box => b.map((v) => Math.round(v * 1e6) / 1e6) as Box;
const clampBox = (b: number[]): Box => round([Math.max(-180, b[0]!), Math.max(-85, b[1]!), Math.min(180, b[2]!), Math.min(85, b[3]!)]);

export interface OfflineAreaFormProps {
  layer: MapLayer;
  map: RefObject<OlMap | null>;
  /** The layer's area was set or removed by the host: the layers are read again. */
  onChanged(): void;
}

export function OfflineAreaForm({ layer, map, onChanged }: OfflineAreaFormProps) {
  const api = useApi();
  const id = useId();
  const job = useOffline((s) => s.jobs[layer.id]);
  const [open, setOpen] = useState(false);
  useEffect(() => { void refreshDownloads(api).catch(() => undefined); }, [api]);
  // Another page's download (or one this page no longer holds) is followed by asking the host.
  useEffect(() => {
    if (job?.state !== 'running' || job.mine) return;
    const t = setInterval(() => { void refreshDownloads(api).catch(() => undefined); }, 1000);
    return () => clearInterval(t);
  }, [api, job?.state, job?.mine]);
  if (!ONLINE.has(layer.source.kind)) return null;

  const name = layer.name;
  const failed = (what: string) => (err: unknown) => say(`${name}: ${what}: ${err instanceof Error ? err.message : String(err)}`, true);
  return (
    <div className="offline-area" role="group" aria-label={`${name} offline`}>
      {layer.offline ? (
        <p className="offline-kept">
          {areaWords(layer.offline)}{' '}
          <button type="button" disabled={job !== undefined} onClick={() => void updateArea(api, layer.id, name, onChanged)}>Update</button>{' '}
          <button type="button" disabled={job?.state === 'running'} onClick={() => {
            void api.offlineDelete({ layer: layer.id }).then(() => { say(`${name} is no longer kept offline.`); onChanged(); }, failed('not deleted'));
          }}>Delete</button>
        </p>
      ) : null}
      {job?.state === 'running' ? (
        <div className="offline-progress">
          <progress max={job.total || 1} value={job.done} aria-label={`Download of ${name}`} />
          <span role="status" aria-label={`Download of ${name} status`}>{progressWords(job)}</span>
          {job.mine ? <button type="button" onClick={() => pauseArea(layer.id)}>Pause</button> : null}
          <button type="button" onClick={() => void cancelArea(api, layer.id).catch(failed('not cancelled'))}>Cancel</button>
        </div>
      ) : job?.state === 'paused' ? (
        <p className="offline-paused" role="status" aria-label={`Download of ${name} status`}>
          {pausedWords(job, job.failed)}{' '}
          <button type="button" onClick={() => void resumeArea(api, layer.id, name, onChanged)}>Resume</button>{' '}
          {keepableWithout(job) ? (
            <><button type="button" onClick={() => void keepWithout(api, layer.id, name, onChanged).catch(failed('not kept'))}>
              Keep the area without {job.failed.toLocaleString('en-US')} tile{job.failed === 1 ? '' : 's'}
            </button>{' '}</>
          ) : null}
          <button type="button" onClick={() => void cancelArea(api, layer.id).catch(failed('not cancelled'))}>Cancel</button>
        </p>
      ) : null}
      {!job ? (
        <button type="button" className="offline-open" aria-expanded={open} aria-controls={`${id}-form`} onClick={() => setOpen(!open)}>
          {layer.offline ? 'Keep another area offline…' : 'Keep offline…'}
        </button>
      ) : null}
      {open && !job ? <AreaChoice id={`${id}-form`} layer={layer} map={map} onStart={(area, minZoom, maxZoom) => {
        setOpen(false);
        void downloadArea(api, { layer: layer.id, area, minZoom, maxZoom }, name, onChanged);
      }} /> : null}
    </div>
  );
}

/** The area and zooms, their count and estimate, and Download. */
function AreaChoice({ id, layer, map, onStart }: { id: string; layer: MapLayer; map: RefObject<OlMap | null>; onStart(area: OfflineAreaChoice, minZoom: number, maxZoom: number): void }) {
  const api = useApi();
  const account = useApp((s) => s.account?.id ?? null);
  const farm = useApp((s) => s.farms.find((f) => f.id === s.farmId) ?? null);
  const [kind, setKind] = useState<AreaKind>(account ? 'farms' : 'view');
  const [drawn, setDrawn] = useState<Box | null>(null);
  const [drawing, setDrawing] = useState(false);
  const [view, setView] = useState<Box | null>(null);
  const [minZoom, setMinZoom] = useState(13);
  const [maxZoom, setMaxZoom] = useState(17);
  const [estimate, setEstimate] = useState<{ e: OfflineEstimate } | { error: string } | null>(null);

  // The box drawn: a DragBox on the map while asked for, taking the map's drags from its panning.
  useEffect(() => {
    const m = map.current;
    if (!m || !drawing) return;
    // Every drag (not only Ctrl+drag, DragBox's default): the box is what the drag is for now.
    const box = new DragBox({ condition: () => true, className: 'ol-dragbox offline-dragbox' });
    box.on('boxend', () => {
      setDrawn(clampBox(transformExtent(box.getGeometry().getExtent(), 'EPSG:3857', 'EPSG:4326')));
      setDrawing(false);
    });
    m.addInteraction(box);
    return () => {
      m.removeInteraction(box);
      box.dispose();
    };
  }, [map, drawing]);

  useEffect(() => {
    if (kind !== 'view') return;
    const m = map.current;
    const size = m?.getSize();
    if (m && size) setView(clampBox(transformExtent(m.getView().calculateExtent(size), 'EPSG:3857', 'EPSG:4326')));
  }, [kind, map]);

  const area: OfflineAreaChoice | null =
    kind === 'farms' ? (account ? { kind: 'farms', account, margin: DEFAULT_MARGIN_M } : null)
    : kind === 'farm' ? (farm ? { kind: 'farm', farm: farm.id, margin: DEFAULT_MARGIN_M } : null)
    : kind === 'view' ? (view ? { kind: 'box', bbox: view } : null)
    : drawn ? { kind: 'box', bbox: drawn } : null;
  const zoomsOk = Number.isInteger(minZoom) && Number.isInteger(maxZoom) && minZoom >= 0 && maxZoom <= 22 && minZoom <= maxZoom;
  const ask = area && zoomsOk ? JSON.stringify({ area, minZoom, maxZoom }) : null;

  // The count and estimate, asked a moment after the choice rests (the estimate downloads a few sample tiles).
  useEffect(() => {
    setEstimate(null);
    if (!ask) return;
    let live = true;
    const t = setTimeout(() => {
      const a = JSON.parse(ask) as { area: OfflineAreaChoice; minZoom: number; maxZoom: number };
      api.offlineEstimate({ layer: layer.id, ...a }).then((e) => { if (live) setEstimate({ e }); }, (err: Error) => { if (live) setEstimate({ error: err.message }); });
    }, 500);
    return () => { live = false; clearTimeout(t); };
  }, [api, layer.id, ask]);

  const ready = estimate && 'e' in estimate && !estimate.e.problem && area !== null;
  const radio = (k: AreaKind, label: string, disabled = false) => (
    <label><input type="radio" name={`${id}-area`} checked={kind === k} disabled={disabled} onChange={() => setKind(k)} /> {label}</label>
  );
  return (
    <form id={id} className="offline-form" aria-label={`Keep ${layer.name} offline`} onSubmit={(e) => { e.preventDefault(); if (ready) onStart(area, minZoom, maxZoom); }}>
      <fieldset>
        <legend>Area</legend>
        {radio('farms', `The account's farms, with ${DEFAULT_MARGIN_M} m around each`, !account)}
        {radio('farm', farm ? `The farm ${farm.name}, with ${DEFAULT_MARGIN_M} m around it` : 'The farm shown (none is chosen)', !farm)}
        {radio('view', "The map's view now")}
        {radio('box', 'A box drawn on the map')}
        {kind === 'box' ? (
          <p className="offline-draw">
            <button type="button" aria-pressed={drawing} onClick={() => setDrawing(!drawing)}>{drawing ? 'Stop drawing' : drawn ? 'Draw again' : 'Draw the box'}</button>{' '}
            <span role="status">{drawing ? 'Drag a box on the map.' : drawn ? `Box ${drawn.map((v) => v.toFixed(4)).join(', ')}` : 'No box yet.'}</span>
          </p>
        ) : null}
      </fieldset>
      <fieldset className="offline-zooms">
        <legend>Zooms</legend>
        <label>From <input type="number" min={0} max={22} value={minZoom} onChange={(e) => setMinZoom(Number(e.target.value))} /></label>
        <label>to <input type="number" min={0} max={22} value={maxZoom} onChange={(e) => setMaxZoom(Number(e.target.value))} /></label>
        {!zoomsOk ? <span className="error" role="alert">Zooms run from 0 to 22, the first no higher than the second.</span> : null}
      </fieldset>
      <p className={estimate && ('error' in estimate || estimate.e.problem) ? 'offline-estimate error' : 'offline-estimate'} role="status" aria-label="Offline estimate">
        {!ask ? 'Choose the area and zooms.' : !estimate ? 'Counting tiles…' : 'error' in estimate ? estimate.error : estimateWords(estimate.e)}
      </p>
      <p className="muted offline-terms">{BULK_WARNING}</p>
      <div className="buttons"><button type="submit" disabled={!ready}>Download</button></div>
    </form>
  );
}
