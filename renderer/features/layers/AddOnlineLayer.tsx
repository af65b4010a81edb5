// The layers panel's form for an online source (features/layers/): XYZ tiles by their address; a WMS or WMTS service
// by its address, its layers read from its capabilities (fetched by the host) to choose from, a WMTS layer's tile
// matrix set chosen for it (Web Mercator's first). Checked with the layers' rules as the host checks them.
import { useId, useState, type FormEvent } from 'react';
import WMSCapabilities from 'ol/format/WMSCapabilities.js';
import WMTSCapabilities from 'ol/format/WMTSCapabilities.js';
import type { MapLayer } from '../../../core/api-layers.ts';
import { layerProblem } from '../../../core/layers/layer-rules.ts';
import { useApi } from '../../context.ts';
import { addLayer, newLayerId } from './layers-store.ts';
import { defaultLayerName, type OnlineKind } from './layer-words.ts';
import { preferredMatrixSet, wmsLayerChoices, wmtsLayerChoices, type LayerChoice } from './capability-choices.ts';

const PLACEHOLDER: Record<OnlineKind, string> = {
  xyz: 'https://tile.example.org/{z}/{x}/{y}.png',
  wms: 'https://wms.example.org/wms',
  wmts: 'https://wmts.example.org/1.0.0/WMTSCapabilities.xml',
};

/** A WMS address's GetCapabilities request (its own query kept). */
function wmsCapabilitiesUrl(url: string): string {
  const u = new URL(url.trim());
  u.searchParams.set('SERVICE', 'WMS');
  u.searchParams.set('REQUEST', 'GetCapabilities');
  return u.href;
}

export function AddOnlineLayer({ onAdded }: { onAdded(name: string): void }) {
  const api = useApi();
  const id = useId();
  const [kind, setKind] = useState<OnlineKind>('xyz');
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [attribution, setAttribution] = useState('');
  const [choices, setChoices] = useState<{ list: LayerChoice[]; parsed: unknown } | null>(null);
  const [chosen, setChosen] = useState('');
  const [matrixSet, setMatrixSet] = useState('');
  const [format, setFormat] = useState<'image/png' | 'image/jpeg'>('image/png');
  const [problem, setProblem] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  const layer = choices?.list.find((c) => c.id === chosen);

  const reset = (k: OnlineKind) => { setKind(k); setChoices(null); setChosen(''); setMatrixSet(''); setProblem(null); };

  const readLayers = async () => {
    setProblem(null);
    setReading(true);
    try {
      const asked = kind === 'wms' ? wmsCapabilitiesUrl(url) : url.trim();
      const { text, stale } = await api.onlineCapabilities({ url: asked });
      const parsed: unknown = kind === 'wms' ? new WMSCapabilities().read(text) : new WMTSCapabilities().read(text);
      const list = kind === 'wms' ? wmsLayerChoices(parsed) : wmtsLayerChoices(parsed);
      if (list.length === 0) throw new Error(`The service lists no ${kind === 'wms' ? 'WMS' : 'WMTS'} layer to draw.`);
      setChoices({ list, parsed });
      setChosen(list[0]!.id);
      setMatrixSet(preferredMatrixSet(parsed, list[0]!.matrixSets) ?? '');
      if (stale) setProblem('The service cannot be reached now: these are its layers as last read.');
    } catch (err) {
      setChoices(null);
      setProblem(err instanceof TypeError ? 'The address is not a valid URL: check it for typing errors.' : (err as Error).message);
    } finally {
      setReading(false);
    }
  };

  const add = (e: FormEvent) => {
    e.preventDefault();
    const source: MapLayer['source'] | null = kind === 'xyz' ? { kind, url: url.trim() }
      : !layer ? null
        : kind === 'wms' ? { kind, url: url.trim(), layers: layer.id, format }
          : { kind, capabilities: url.trim(), layer: layer.id, matrixSet };
    if (!source) return setProblem('Read the service\'s layers first, then choose one.');
    if (source.kind === 'wmts' && !source.matrixSet) return setProblem('Choose a tile matrix set.');
    const l: MapLayer = {
      id: newLayerId(), name: name.trim() || defaultLayerName(kind, url, layer?.title), visible: true, opacity: 1, source,
      ...(attribution.trim() ? { attribution: attribution.trim().slice(0, 500) } : {}),
    };
    const why = layerProblem(l);
    setProblem(why);
    if (why) return;
    addLayer(l);
    onAdded(l.name);
    setUrl('');
    setName('');
    setAttribution('');
    reset(kind);
  };

  return (
    <form className="add-layer" aria-label="Add an online layer" onSubmit={add}>
      <h3>Add an online layer</h3>
      <label htmlFor={`${id}-kind`}>Kind</label>
      <select id={`${id}-kind`} value={kind} onChange={(e) => reset(e.target.value as OnlineKind)}>
          <option value="xyz">XYZ tiles</option>
          <option value="wms">WMS</option>
          <option value="wmts">WMTS</option>
      </select>
      <label>{kind === 'wmts' ? 'Capabilities address' : kind === 'wms' ? 'Service address' : 'Tile address'}
        <input type="text" value={url} placeholder={PLACEHOLDER[kind]} spellCheck={false} aria-invalid={problem !== null} aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(e) => { setUrl(e.target.value); setChoices(null); }} />
      </label>
      {kind !== 'xyz' ? <button type="button" disabled={!url.trim() || reading} onClick={() => void readLayers()}>{reading ? 'Reading…' : 'Read its layers'}</button> : null}
      {choices ? (
        <>
          <label htmlFor={`${id}-layer`}>Layer</label>
          <select id={`${id}-layer`} value={chosen} onChange={(e) => { setChosen(e.target.value); setMatrixSet(preferredMatrixSet(choices.parsed, choices.list.find((c) => c.id === e.target.value)?.matrixSets ?? []) ?? ''); }}>
            {choices.list.map((c) => <option key={c.id} value={c.id}>{c.title === c.id ? c.id : `${c.title} (${c.id})`}</option>)}
          </select>
        </>
      ) : null}
      {kind === 'wmts' && layer ? (
        <>
          <label htmlFor={`${id}-matrix`}>Tile matrix set</label>
          <select id={`${id}-matrix`} value={matrixSet} onChange={(e) => setMatrixSet(e.target.value)}>
            {layer.matrixSets.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </>
      ) : null}
      {kind === 'wms' && layer ? (
        <>
          <label htmlFor={`${id}-format`}>Image format</label>
          <select id={`${id}-format`} value={format} onChange={(e) => setFormat(e.target.value as 'image/png' | 'image/jpeg')}>
            <option value="image/png">PNG (transparent)</option>
            <option value="image/jpeg">JPEG (orthophotos)</option>
          </select>
        </>
      ) : null}
      <label>Name <input type="text" value={name} maxLength={200} placeholder="(from the address)" onChange={(e) => setName(e.target.value)} /></label>
      <label>Credit <input type="text" value={attribution} maxLength={500} placeholder="© the source's owner" onChange={(e) => setAttribution(e.target.value)} /></label>
      {problem ? <p id={`${id}-problem`} className="error" role="alert">{problem}</p> : null}
      <div className="buttons"><button type="submit">Add layer</button></div>
    </form>
  );
}
