// Modify without a pointer: the shape's vertices as "longitude, latitude" fields, ring by ring. A vertex typed and
// committed (Enter, or leaving the field) moves on the map as a drag would (useModify.ts takes typed rings); a vertex
// can be removed, or one added halfway to the next. Closed by default: a parcel may have hundreds of vertices. The
// same table fixes a drawn polygon that crosses itself (features/draw/DraftFix.tsx), given its ring and where to put it.
import { useEffect, useRef, useState } from 'react';
import { typeRings, useEdit } from './edit-store.ts';
import { withVertex, type Rings } from './shape.ts';
import { formatLonLat, parseLonLat } from '../coordinates/lon-lat.ts';

function VertexField({ pos, label, onSet }: { pos: [number, number]; label: string; onSet(pos: [number, number]): void }) {
  const [text, setText] = useState(formatLonLat(pos));
  const [error, setError] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  // Moved on the map, or shifted by a vertex added or removed before it: the field follows, unless it is being typed in.
  useEffect(() => { if (document.activeElement !== field.current) { setText(formatLonLat(pos)); setError(null); } }, [pos]);
  const commit = () => {
    if (text === formatLonLat(pos)) return;
    const got = parseLonLat(text);
    if ('error' in got) { setError(got.error); return; }
    setError(null);
    setText(formatLonLat(got.pos));
    onSet(got.pos);
  };
  return (
    <>
      <input ref={field} type="text" inputMode="decimal" autoComplete="off" spellCheck={false} aria-label={label} value={text} aria-invalid={error !== null}
        onChange={(e) => { setText(e.target.value); setError(null); }} onBlur={commit}
        onKeyDown={(e) => {
          // Enter takes the vertex and keeps the focus here; Esc leaves the field (Modify's own Enter and Esc are outside fields).
          if (e.key === 'Enter') { e.preventDefault(); e.stopPropagation(); commit(); }
          else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); e.currentTarget.blur(); }
        }} />
      {error ? <span role="alert" className="error">{error}</span> : null}
    </>
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
                <li key={i}>
                  <span className="n" aria-hidden="true">{i + 1}</span>
                  <VertexField pos={pos} label={`${name[0]!.toUpperCase()}${name.slice(1)} (longitude, latitude)`}
                    onSet={(to) => change(withVertex(given ?? useEdit.getState().rings, r, i, { set: to }))} />
                  <button type="button" aria-label={`Remove ${name}`} title="Remove this vertex" disabled={ring.length <= 3}
                    onClick={() => change(withVertex(rings, r, i, { remove: true }))}>×</button>
                  <button type="button" aria-label={`Add a vertex after ${name}`} title="Add a vertex halfway to the next"
                    onClick={() => change(withVertex(rings, r, i, { insertAfter: true }))}>+</button>
                </li>
              );
            })}
          </ol>
        </fieldset>
      )) : null}
    </details>
  );
}
