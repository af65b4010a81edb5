// The Measure tool's button (on the map, beside Go to coordinate's) and panel (over the map, while measuring): line or area, the result live
// as vertices are clicked (a line's length and each segment's; a polygon's area and perimeter), the units, and a
// button that copies the result as text. Nothing here is saved; measuring never makes a parcel.
import { useState } from 'react';
import { useApp } from '../../store.ts';
import { keyHint, useKeyName } from '../../keymap.ts';
import { formatArea, formatLength, measure, measurementText, type MeasureKind, type Units } from './measure-math.ts';
import { setUnits, startMeasure, stopMeasure, toggleMeasure, useMeasure } from './measure-store.ts';
import './measure.css';

export function MeasureButton() {
  const mode = useApp((s) => s.mode);
  const ready = useApp((s) => s.account !== null);
  const key = useKeyName('measure');
  return (
    <button type="button" aria-label="Measure" aria-keyshortcuts={key ?? undefined} title={`Measure a distance or an area${keyHint(key)}`} aria-pressed={mode === 'measure'} disabled={!ready}
      onClick={toggleMeasure}>
      ↔ Measure
    </button>
  );
}

export function MeasurePanel() {
  const { kind, points, done, units } = useMeasure();
  const [copied, setCopied] = useState<string | null>(null);
  // While drawing, the last point follows the pointer: counted once it is clicked.
  const m = measure(kind, points);
  const clicked = done ? points.length : Math.max(0, points.length - 1);
  const text = measurementText(m, units);
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(() => setCopied('Copied.'), () => setCopied('The clipboard refused: select the text and copy it.'));
  };
  return (
    <section className="measure-panel map-tool" aria-label="Measure">
      <div className="tool-head">
        <h2>Measure</h2>
        <button type="button" onClick={stopMeasure} aria-label="Stop measuring" title="Stop measuring (Esc)">✕</button>
      </div>
      <div className="measure-kind" role="radiogroup" aria-label="What to measure">
        {(['line', 'area'] as MeasureKind[]).map((k) => (
          <label key={k}><input type="radio" name="measure-kind" checked={kind === k} onChange={() => startMeasure(k)} /> {k === 'line' ? 'Distance' : 'Area'}</label>
        ))}
        <label className="units">Units{' '}
          <select value={units} onChange={(e) => setUnits(e.target.value as Units)}>
            <option value="metric">m, km, ha</option>
            <option value="us">ft, mi, ac</option>
          </select>
        </label>
      </div>
      {kind === 'line' ? (
        <p className="measure-result" aria-live="polite">
          Length <output data-field="measure-length" data-metres={m.lengthM}>{formatLength(m.lengthM, units)}</output>
          {m.segments.length > 1 ? <span className="muted"> in {m.segments.length} segments</span> : null}
        </p>
      ) : (
        <p className="measure-result" aria-live="polite">
          Area <output data-field="measure-area" data-m2={m.areaM2}>{formatArea(m.areaM2, units)}</output>
          <br />Perimeter <output data-field="measure-perimeter" data-metres={m.lengthM}>{formatLength(m.lengthM, units)}</output>
        </p>
      )}
      {m.segments.length > 0 ? (
        <ol className="measure-segments" aria-label="Segments">
          {m.segments.map((s, i) => <li key={i}>{formatLength(s, units)}</li>)}
        </ol>
      ) : null}
      <p className="muted">
        {clicked === 0 ? `Click the map to start; vertices snap to parcels and overlays. ${kind === 'line' ? 'Double-click' : 'Click the first vertex'} or Enter to finish, Backspace takes one back, Esc stops.`
          : done ? 'Click to start another.' : `${clicked} ${clicked === 1 ? 'vertex' : 'vertices'}.`}
        {' '}Geodesic on the WGS84 ellipsoid; segments are drawn straight on the map.
      </p>
      <div className="buttons">
        <button type="button" disabled={clicked < 2} onClick={copy}>Copy result</button>
        <span className="muted" role="status">{copied}</span>
      </div>
    </section>
  );
}
