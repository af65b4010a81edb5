// Modify without a pointer: the shape's vertices as "longitude, latitude" fields, ring by ring. A vertex typed and
// committed (Enter, or leaving the field) moves on the map as a drag would (useModify.ts takes typed rings); a vertex
// can be removed, or one added halfway to the next. Closed by default: a parcel may have hundreds of vertices. The
// same table fixes a drawn polygon that crosses itself (features/draw/DraftFix.tsx), given its ring and where to put it.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { typeRings, useEdit } from './edit-store.ts';
import { withVertex, type Rings } from './shape.ts';
import { formatLonLat, parseLonLat, swapSuggestion, type LonLat } from '../coordinates/lon-lat.ts';
import { placesNow } from '../coordinates/places-store.ts';
import { bboxOf } from '../../../core/geo/bbox.ts';
import '../coordinates/coordinates.css';

/**
 * One vertex's row: its number, its field, the row's buttons (`children`), and under them its error, or the warning
 * for a position typed latitude first (swapped, it would lie by the shape, the farm or the view: lon-lat.ts
 * swapSuggestion), whose Swap has the focus.
 */
function VertexField({ n, pos, label, shape, onSet, children }: {
  n: number; pos: [number, number]; label: string; shape: Rings; onSet(pos: [number, number]): void; children: ReactNode;
}) {
  const [text, setText] = useState(formatLonLat(pos));
  const [error, setError] = useState<string | null>(null);
  const [suspect, setSuspect] = useState<{ typed: LonLat; swapped: LonLat } | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const problemId = useId();
  // Moved on the map, or shifted by a vertex added or removed before it: the field follows, unless it is being typed in.
  useEffect(() => { if (document.activeElement !== field.current) { setText(formatLonLat(pos)); setError(null); } }, [pos]);
  const take = (to: LonLat) => {
    setSuspect(null);
    setError(null);
    setText(formatLonLat(to));
    onSet(to);
  };
  const commit = () => {
    if (text === formatLonLat(pos)) return;
    const got = parseLonLat(text);
    if ('error' in got) { setError(got.error); return; }
    const positions = shape.flat();
    const swapped = swapSuggestion(got.pos, [...(positions.length ? [bboxOf([positions])] : []), ...placesNow()]);
    if (swapped) { setSuspect({ typed: got.pos, swapped }); return; }
    take(got.pos);
  };
  return (
    <li>
      <span className="n" aria-hidden="true">{n}</span>
      <input ref={field} type="text" inputMode="decimal" autoComplete="off" spellCheck={false} aria-label={label} value={text} aria-invalid={error !== null} aria-describedby={error ? problemId : undefined}
        onChange={(e) => { setText(e.target.value); setError(null); setSuspect(null); }} onBlur={() => { if (!suspect) commit(); }}
        onKeyDown={(e) => {
          // Enter takes the vertex and keeps the focus here; Esc leaves the field (Modify's own Enter and Esc are outside fields).
          if (e.key === 'Enter') { e.preventDefault(); e.stopPropagation(); commit(); }
          else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); e.currentTarget.blur(); }
        }} />
      {children}
      {error ? <span id={problemId} role="alert" className="error row">{error}</span> : null}
      {suspect ? (
        <div className="swap-warning row" role="alert">
          <p>{formatLonLat(suspect.typed)} is far from the shape; {formatLonLat(suspect.swapped)} is by it. Longitude comes first: were they typed latitude, longitude?</p>
          <div className="buttons">
            <button type="button" autoFocus onClick={() => take(suspect.swapped)}>Swap to {formatLonLat(suspect.swapped)}</button>
            <button type="button" onClick={() => take(suspect.typed)}>Keep {formatLonLat(suspect.typed)}</button>
          </div>
        </div>
      ) : null}
    </li>
  );
}

/** The rings being modified (the edit store's), or `rings` changed through `onRings` (a drawn polygon's). */
export function VertexTable({ rings: given, onRings, initiallyOpen = false }: { rings?: Rings; onRings?(rings: Rings): void; initiallyOpen?: boolean }) {
  const edited = useEdit((s) => s.rings);
  const rings = given ?? edited;
  const change = onRings ?? typeRings;
  const [open, setOpen] = useState(initiallyOpen);
  const count = rings.reduce((n, ring) => n + ring.length, 0);
  return (
    <details className="vertices" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Vertices ({count}): type coordinates</summary>
      {open ? rings.map((ring, r) => (
        <fieldset key={r}>
          <legend>{r === 0 ? 'Outline' : `Hole ${r}`}</legend>
          <ol>
            {ring.map((pos, i) => {
              const name = `${r === 0 ? '' : `hole ${r} `}vertex ${i + 1}`;
              return (
                <VertexField key={i} n={i + 1} pos={pos} label={`${name[0]!.toUpperCase()}${name.slice(1)} (longitude, latitude)`} shape={rings}
                  onSet={(to) => change(withVertex(given ?? useEdit.getState().rings, r, i, { set: to }))}>
                  <button type="button" aria-label={`Remove ${name}`} title="Remove this vertex" disabled={ring.length <= 3}
                    onClick={() => change(withVertex(rings, r, i, { remove: true }))}>×</button>
                  <button type="button" aria-label={`Add a vertex after ${name}`} title="Add a vertex halfway to the next"
                    onClick={() => change(withVertex(rings, r, i, { insertAfter: true }))}>+</button>
                </VertexField>
              );
            })}
          </ol>
        </fieldset>
      )) : null}
    </details>
  );
}
