// Drawing without a pointer: vertices typed as "longitude, latitude" join the polygon being drawn as clicks do (the
// map's Draw appends them, features/draw/useDrawPolygon.ts), with buttons to take the last one back and to finish.
// The same field places a hectare point (PointAt). Reachable with Tab; Enter in the field adds the vertex.
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { commandDraft, set, useApp } from '../../store.ts';
import { formatLonLat, parseLonLat, swapSuggestion, type LonLat } from './lon-lat.ts';
import { placesNow } from './places-store.ts';
import './coordinates.css';

/** A "longitude, latitude" field with its inline error; `onPosition` gets what was typed once it reads. */
function LonLatForm({ name, label, button, onPosition, initial = '', children }: {
  /** The form's own accessible name; `label` is its field's. */
  name: string; label: string; button: string;
  /** Takes the position typed, or refuses it with a sentence shown as the field's error. */
  onPosition(pos: [number, number]): string | void; initial?: string; children?: ReactNode;
}) {
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  // A position that looks typed latitude first: held until the user swaps it or keeps it as typed.
  const [suspect, setSuspect] = useState<{ typed: LonLat; swapped: LonLat } | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const problemId = useId();
  const swapId = `${name.replace(/\W+/g, '-').toLowerCase()}-swap`;
  const take = (pos: LonLat) => {
    setSuspect(null);
    const refused = onPosition(pos);
    setError(refused || null);
    // Selected: the next vertex is typed over it, or edited from it with the arrow keys.
    field.current?.focus();
    field.current?.select();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = parseLonLat(text);
    if ('error' in r) { setError(r.error); return; }
    const swapped = swapSuggestion(r.pos, placesNow());
    if (swapped) { setSuspect({ typed: r.pos, swapped }); return; }
    take(r.pos);
  };
  const swap = () => {
    if (!suspect) return;
    setText(formatLonLat(suspect.swapped));
    take(suspect.swapped);
  };
  return (
    <form className="lonlat" aria-label={name} onSubmit={submit}>
      <label>{label}{' '}
        <input ref={field} type="text" inputMode="decimal" autoComplete="off" spellCheck={false} placeholder="-4.0123, 37.2045" value={text}
          aria-invalid={error !== null} aria-describedby={suspect ? swapId : error ? problemId : undefined} onChange={(e) => { setText(e.target.value); setError(null); setSuspect(null); }}
          // Esc leaves the field (the map's keys work again); a second Esc, outside it, cancels as it does everywhere.
          onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); e.currentTarget.blur(); } }} />
      </label>
      <div className="buttons">
        <button type="submit">{button}</button>
        {children}
      </div>
      {error ? <p id={problemId} role="alert" className="error">{error}</p> : null}
      {suspect ? (
        // The swap has the focus: Enter (or a click) takes it; the typed order stays one button away.
        <div className="swap-warning" role="alert" id={swapId}>
          <p>{formatLonLat(suspect.typed)} is far from the farm and the map; {formatLonLat(suspect.swapped)} is on them. Longitude comes first: were they typed latitude, longitude?</p>
          <div className="buttons">
            <button type="button" autoFocus onClick={swap}>Swap to {formatLonLat(suspect.swapped)}</button>
            <button type="button" onClick={() => take(suspect.typed)}>Keep {formatLonLat(suspect.typed)}</button>
          </div>
        </div>
      ) : null}
    </form>
  );
}

/** While a polygon is being drawn: its vertices typed one by one. */
export function VertexEntry() {
  // The draft ring ends with the vertex that follows the pointer (or repeats the last one typed).
  const vertices = useApp((s) => Math.max(0, s.draft.length - 1));
  const add = (pos: [number, number]): string | void => {
    const { draft } = useApp.getState();
    // The last vertex again (Enter pressed twice on the same text) would be a zero-length edge the service keeps.
    const last = draft.length >= 2 ? draft[draft.length - 2] : undefined;
    if (last && last[0] === pos[0] && last[1] === pos[1]) return 'That is the last vertex again: type the next one, or Finish polygon.';
    commandDraft({ op: 'add', pos });
  };
  return (
    <LonLatForm name="Vertices by coordinates" label="Vertex (longitude, latitude)" button="Add vertex" onPosition={add}>
      <button type="button" disabled={vertices === 0} onClick={() => commandDraft({ op: 'undo' })}>Remove last vertex</button>
      <button type="button" disabled={vertices < 3} onClick={() => commandDraft({ op: 'finish' })}>Finish polygon</button>
      <span className="muted" aria-live="polite">{vertices} {vertices === 1 ? 'vertex' : 'vertices'}</span>
    </LonLatForm>
  );
}

/** The hectare point placed, or moved, by its typed position. */
export function PointAt() {
  const point = useApp((s) => s.point);
  return (
    <LonLatForm key={point ? formatLonLat(point) : 'none'} name="Point by coordinates" label="Point at (longitude, latitude)" button={point ? 'Move point' : 'Place point'}
      initial={point ? formatLonLat(point) : ''} onPosition={(pos) => set({ point: pos })} />
  );
}
