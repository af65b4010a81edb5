// Go to coordinate (G or Ctrl+G): one field that reads decimal degrees (longitude first, with the vertex fields' swap
// suggestion), degrees, minutes and seconds, UTM ("30S 234567 4145678") and an EPSG code's x and y
// ("EPSG:25830 234567 4145678"; the host answers the definition), parse-goto.ts. The map centres there with a marker;
// while a polygon is drawn, the place can be added as its next vertex. Esc closes it.
import { useRef, useState, type FormEvent } from 'react';
import { useApi } from '../../context.ts';
import { commandDraft, useApp } from '../../store.ts';
import { useKeyName } from '../../keymap.ts';
import { formatLonLat, swapSuggestion, type LonLat } from '../coordinates/lon-lat.ts';
import { placesNow } from '../coordinates/places-store.ts';
import { formatDms } from '../coordinates/dms.ts';
import { parseGoTo } from './parse-goto.ts';
import { placeInCrs } from './place.ts';
import { closeGoTo, goTo, openGoTo, rememberEpsg, useGoTo } from './goto-store.ts';
import '../measure/measure.css';
import '../coordinates/coordinates.css';

/** On the map beside Measure, above the cursor's read-out: opens and closes the form. */
export function GoToButton() {
  const open = useGoTo((s) => s.open);
  const key = useKeyName('goto');
  const keys = ['Control+G', ...(key ? [key] : [])].join(' ');
  return (
    <button type="button" aria-label="Go to coordinate" aria-keyshortcuts={keys} title={`Go to coordinate (Ctrl+G${key ? `, ${key}` : ''})`} aria-pressed={open}
      onClick={() => (open ? closeGoTo() : openGoTo())}>
      ⊕ Go to
    </button>
  );
}

export function GoToPanel() {
  const api = useApi();
  const lastEpsg = useGoTo((s) => s.lastEpsg);
  const drawing = useApp((s) => s.mode === 'draw' && !s.drawn);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [went, setWent] = useState<{ pos: LonLat; how: string } | null>(null);
  const [suspect, setSuspect] = useState<{ typed: LonLat; swapped: LonLat } | null>(null);
  const field = useRef<HTMLInputElement>(null);

  const arrive = (pos: LonLat, how: string) => {
    setSuspect(null);
    setError(null);
    setWent({ pos, how });
    goTo(pos);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setWent(null);
    setSuspect(null);
    const r = parseGoTo(text, lastEpsg);
    if ('error' in r) { setError(r.error); return; }
    if (r.kind === 'lonlat') {
      const swapped = swapSuggestion(r.pos, placesNow());
      if (swapped) { setSuspect({ typed: r.pos, swapped }); return; }
      arrive(r.pos, 'longitude, latitude');
    } else if (r.kind === 'dms') arrive(r.pos, 'degrees, minutes, seconds');
    else if (r.kind === 'utm') arrive(r.pos, `UTM zone ${r.zone}${r.band} (WGS 84)`);
    else {
      setBusy(true);
      try {
        const crs = await api.crsDefinition({ code: r.code });
        const placed = placeInCrs(crs, r.x, r.y);
        if ('error' in placed) { setError(placed.error); return; }
        rememberEpsg(r.code);
        const grid = crs.byGrid ? '; without its datum grid, within a few metres' : '';
        arrive(placed.pos, `EPSG:${r.code} ${crs.name}${r.remembered ? ', the coordinate system used last' : ''}${grid}`);
      } catch (err) {
        setError(err instanceof Error ? err.message : String(err));
      } finally {
        setBusy(false);
      }
    }
  };
  return (
    <section className="goto-panel map-tool" aria-label="Go to coordinate">
      <div className="tool-head">
        <h2>Go to coordinate</h2>
        <button type="button" onClick={closeGoTo} aria-label="Close go to coordinate" title="Close (Esc)">✕</button>
      </div>
      <form onSubmit={(e) => void submit(e)}>
        <label htmlFor="goto-field">Place</label>
        <div className="buttons">
          <input id="goto-field" ref={field} type="text" autoComplete="off" spellCheck={false} autoFocus value={text} size={30}
            placeholder={lastEpsg ? `EPSG:${lastEpsg} 234567 4145678` : `37°22'48"N 5°58'48"W`} aria-invalid={error !== null} aria-describedby="goto-help"
            onChange={(e) => { setText(e.target.value); setError(null); setSuspect(null); }}
            onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); closeGoTo(); } }} />
          <button type="submit" disabled={busy}>Go</button>
        </div>
        <p id="goto-help" className="muted">
          Longitude, latitude (-5.98, 37.38); 37°22&apos;48&quot;N 5°58&apos;48&quot;W; UTM 30S 234567 4145678; EPSG:25830 234567 4145678
          {lastEpsg ? ` (metres alone are read in EPSG:${lastEpsg}, used last)` : ''}.
        </p>
      </form>
      {error ? <p role="alert" className="error">{error}</p> : null}
      {suspect ? (
        <div className="swap-warning" role="alert">
          <p>{formatLonLat(suspect.typed)} is far from the farm and the map; {formatLonLat(suspect.swapped)} is on them. Longitude comes first: were they typed latitude, longitude?</p>
          <div className="buttons">
            <button type="button" autoFocus onClick={() => { setText(formatLonLat(suspect.swapped)); arrive(suspect.swapped, 'longitude, latitude (swapped)'); }}>Go to {formatLonLat(suspect.swapped)}</button>
            <button type="button" onClick={() => arrive(suspect.typed, 'longitude, latitude')}>Keep {formatLonLat(suspect.typed)}</button>
          </div>
        </div>
      ) : null}
      {went ? (
        <div role="status" className="goto-went">
          <p>Centred on <output data-field="goto-lonlat">{formatLonLat(went.pos)}</output> ({formatDms(went.pos)}), read as {went.how}.</p>
          {/* The polygon being drawn takes it as a typed vertex (its exact [lon, lat]), as VertexEntry's field does. */}
          {drawing ? <button type="button" onClick={() => commandDraft({ op: 'add', pos: went.pos })}>Add as vertex</button> : null}
        </div>
      ) : null}
    </section>
  );
}
