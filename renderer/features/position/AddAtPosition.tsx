// "Vertex at my position" in the side panel while drawing or modifying (V): at once, or averaged over the fixes or
// seconds Position sets, the averaged position and its spread shown as they come; a vertex less accurate than the
// threshold waits for the user's word (Add anyway / Don't add) rather than being refused outright — the field is
// where the user stands, and only they know whether a worse fix is good enough for this corner.
import { useEffect } from 'react';
import { useKeyName, keyHint } from '../../keymap.ts';
import { averagePositions } from '../../../core/gnss/average.ts';
import { addVertex, averageGoal, cancelAveraging, checkAveraging, refuseVertex, startVertex } from './position-actions.ts';
import { fixKind } from './position-words.ts';
import { usePosition } from './position-store.ts';
import { goalWords } from '../../../core/gnss/average.ts';
import './position.css';

export function AddAtPosition() {
  const key = useKeyName('here');
  const fix = usePosition((s) => s.state?.fix ?? null);
  const averaging = usePosition((s) => s.averaging);
  const pending = usePosition((s) => s.pending);
  const live = fixKind(fix, Date.now()) === 'live';
  useEffect(() => {
    if (!averaging) return;
    checkAveraging();
    const t = setInterval(checkAveraging, 250);
    return () => clearInterval(t);
  }, [averaging]);
  if (!fix && !averaging && !pending) return null; // no source of position: nothing to offer
  const avg = averaging ? averagePositions(averaging.fixes.map((f) => [f.lon, f.lat] as const)) : null;
  return (
    <div className="at-position">
      <button type="button" aria-keyshortcuts={key ?? undefined} title={`Add a vertex where you stand${keyHint(key)}`} disabled={!live || averaging !== null || pending !== null}
        onClick={startVertex}>Vertex at my position</button>
      {averaging ? (
        <p role="status" className="averaging">
          Averaging ({goalWords(averageGoal())}): {averaging.fixes.length} {averaging.fixes.length === 1 ? 'fix' : 'fixes'}
          {avg ? <> at <output data-field="average">{avg.lon.toFixed(7)}, {avg.lat.toFixed(7)}</output>, spread <output data-field="spread">{avg.spread.toFixed(2)} m</output></> : null}{' '}
          <button type="button" onClick={cancelAveraging}>Cancel</button>
        </p>
      ) : null}
      {pending ? (
        <div role="alert" className="accuracy-warning">
          <p>{pending.problem} Add it anyway?</p>
          <div className="buttons">
            <button type="button" onClick={() => addVertex(pending.vertex)}>Add anyway</button>
            <button type="button" autoFocus onClick={refuseVertex}>Don&apos;t add</button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
