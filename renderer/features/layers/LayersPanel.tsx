// The layers panel (issue 30), under the map's zoom buttons: the basemaps and reference overlays drawn under the
// parcels, top first — each with its visibility, opacity, place in the order and a legend entry (what it is, from
// where, whom it credits, and whether it is failing now) — and the form to add an online one. B opens and closes it;
// it takes the focus when it opens and gives it back to its button; Esc closes it. Not modal: the map stays usable.
import { useEffect, useId, useState, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import type { MapLayer } from '../../../core/api-layers.ts';
import { useApi } from '../../context.ts';
import { isShortcut, keyHint, useKeyName } from '../../keymap.ts';
import { say } from '../../store.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { AddOnlineLayer } from './AddOnlineLayer.tsx';
import { layerOfFile, OpenLayerFile } from './OpenLayerFile.tsx';
import { addLayer, describeFile, editLayer, moveLayer, removeLayer, setLayerList, useLayers } from './layers-store.ts';
import { OfflineAreaForm } from './OfflineAreaForm.tsx';
import { KIND_WORDS, legendLine, topFirst, wmsLegendUrl } from './layer-words.ts';
import './layers.css';

const setOpen = (open: boolean) => useLayers.setState({ open });

/** A WMS layer's own legend (GetLegendGraphic), as its service draws it; not shown when the service cannot give one. */
function LegendGraphic({ url, name }: { url: string | null; name: string }) {
  const [failed, setFailed] = useState(false);
  if (!url || failed) return null;
  return <img className="layer-legend-graphic" src={url} alt={`Legend of ${name}`} onError={() => setFailed(true)} />;
}

function LayerItem({ l, first, last, why, map }: { l: MapLayer; first: boolean; last: boolean; why: string | undefined; map: RefObject<OlMap | null> }) {
  const id = useId();
  const file = useLayers((s) => (l.source.kind === 'file' ? s.files[l.source.file] : undefined));
  const api = useApi();
  // An area kept offline is the host's to set (backend/offline-areas.ts): the list is read again once it changes.
  const reread = () => { void api.layers({}).then(({ layers }) => setLayerList(layers), () => {}); };
  const percent = Math.round(l.opacity * 100);
  return (
    <li className={why ? 'layer failing' : 'layer'} aria-describedby={`${id}-legend`}>
      <div className="layer-head">
        <label className="layer-name"><input type="checkbox" checked={l.visible} onChange={(e) => editLayer(l.id, { visible: e.target.checked })} /> {l.name}</label>
        <span className="layer-kind">{KIND_WORDS[l.source.kind]}</span>
      </div>
      <p id={`${id}-legend`} className="layer-legend">
        <span className={`layer-swatch swatch-${l.source.kind}`} aria-hidden="true" />{legendLine(l, file)}
        {why ? <span className="layer-problem"> Unavailable: {why}</span> : null}
      </p>
      {l.source.kind === 'wms' ? <LegendGraphic url={wmsLegendUrl(l.source)} name={l.name} /> : null}
      <div className="layer-tools">
        <label className="layer-opacity">Opacity{' '}
          <input type="range" min={0} max={100} step={5} value={percent} aria-label={`Opacity of ${l.name}`} aria-valuetext={`${percent} %`}
            onChange={(e) => editLayer(l.id, { opacity: Number(e.target.value) / 100 })} />
          <output aria-hidden="true">{percent} %</output>
        </label>
        <button type="button" disabled={first} aria-label={`Move ${l.name} up`} title="Up: drawn above the layer over it" onClick={() => moveLayer(l.id, 1)}>↑</button>
        <button type="button" disabled={last} aria-label={`Move ${l.name} down`} title="Down: drawn under the layer below it" onClick={() => moveLayer(l.id, -1)}>↓</button>
        {l.source.kind !== 'world' ? (
          <button type="button" aria-label={`Remove ${l.name}`} title="Remove the layer" onClick={() => { removeLayer(l.id); say(`Removed the layer ${l.name}.`); }}>✕</button>
        ) : null}
      </div>
      <OfflineAreaForm layer={l} map={map} onChanged={reread} />
    </li>
  );
}

/** `map`: the map the offline-area form draws its box on. */
export function LayersPanel({ map }: { map: RefObject<OlMap | null> }) {
  const { layers, failing, open } = useLayers();
  const panelId = useId();
  const key = useKeyName('basemap');
  const panel = useDialogFocus(() => setOpen(false), { modal: false, opener: '.layers-control > button', open });
  const unavailable = layers.filter((l) => l.visible && failing[l.id]).length;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isShortcut(e, 'basemap')) { e.preventDefault(); setOpen(!useLayers.getState().open); }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const listed = topFirst(layers);
  return (
    <div className="layers-control">
      <button type="button" aria-expanded={open} aria-controls={panelId} aria-keyshortcuts={key ?? undefined} title={`Layers${keyHint(key)}`} onClick={() => setOpen(!open)}>Layers</button>
      {unavailable > 0 && !open ? (
        <span className="layers-hint" role="status" aria-label="Layers status">
          {unavailable === 1 ? 'A layer is' : `${unavailable} layers are`} unavailable: the map works without {unavailable === 1 ? 'it' : 'them'}
        </span>
      ) : null}
      {open ? (
        <section id={panelId} ref={panel} className="layers-panel" role="dialog" aria-labelledby={`${panelId}-title`} tabIndex={-1}
          onKeyDown={(e) => { if (e.key !== 'Escape') e.nativeEvent.stopPropagation(); }}>
          <div className="layers-head">
            <h2 id={`${panelId}-title`}>Layers</h2>
            <button type="button" aria-label="Close the layers panel" title="Close (Esc)" onClick={() => setOpen(false)}>✕</button>
          </div>
          <p className="muted">Top first; the parcels are always drawn above them.</p>
          <ol className="layer-list" aria-label="Map layers, top first">
            {listed.map((l, i) => <LayerItem key={l.id} l={l} first={i === 0} last={i === listed.length - 1} why={failing[l.id]} map={map} />)}
          </ol>
          <OpenLayerFile onAdded={(info) => {
            describeFile(info);
            addLayer(layerOfFile(info));
            say([`Added the layer ${info.name}, on top of the others.`, ...info.notes].join(' '));
          }} />
          <AddOnlineLayer onAdded={(name) => say(`Added the layer ${name}, on top of the others.`)} />
        </section>
      ) : null}
    </div>
  );
}
