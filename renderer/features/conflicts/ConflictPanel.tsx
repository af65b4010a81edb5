// The selected parcel's open conflict, side by side: each field that differs, mine against the service's, and the
// two ways out (`resolve` keep mine / keep theirs). Without it a conflict could only be settled from the CLI.
// After a choice the host's change event reloads the parcel (its state goes pending or synced) and the counts.
import { useEffect, useState } from 'react';
import type { ParcelConflict, ParcelFeature } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { fieldLabel, kindNote, resolvedMessage, sideText } from './conflict-words.ts';
import './conflicts.css';

export function ConflictPanel({ parcel }: { parcel: ParcelFeature }) {
  const api = useApi();
  const version = useApp((s) => s.version);
  const inConflict = parcel.properties.state === 'conflict';
  const [conflict, setConflict] = useState<ParcelConflict | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    if (!inConflict) { setConflict(null); return; }
    api.parcelConflict({ id: parcel.id }).then((c) => { if (live) setConflict(c); }, () => { if (live) setConflict(null); });
    return () => { live = false; };
  }, [api, parcel.id, inConflict, version]);
  // A conflict on one of the parcel's crops is not the parcel's own: nothing to choose here.
  if (!inConflict || !conflict) return null;

  const keep = async (which: 'mine' | 'theirs') => {
    setBusy(true);
    try {
      await api.resolve({ conflict: conflict.id, keep: which });
      say(resolvedMessage(conflict, which, parcel.properties.name));
    } catch (err) {
      say(`Not settled: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };
  const note = kindNote(conflict.kind);
  return (
    <section className="conflict" aria-label="Conflict">
      <h3>Changed here and on the service</h3>
      {note ? <p>{note}</p> : null}
      {conflict.differences.length ? (
        <table aria-label="Both versions">
          <thead><tr><th scope="col">Field</th><th scope="col">Mine</th><th scope="col">Theirs (on the service)</th></tr></thead>
          <tbody>
            {conflict.differences.map((d) => (
              <tr key={d.field} className={d.overlaps ? 'overlaps' : undefined} data-conflict-field={d.field}>
                <th scope="row">{fieldLabel(d.field)}</th>
                <td data-side="mine">{sideText(d.mine)}</td>
                <td data-side="theirs">{sideText(d.theirs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : <p className="muted">{conflict.reason}</p>}
      <div className="buttons">
        <button type="button" disabled={busy} onClick={() => void keep('mine')} title="Send my version to the service at the next sync">Keep mine</button>
        <button type="button" disabled={busy} onClick={() => void keep('theirs')} title="Take the service's version here">Keep theirs</button>
      </div>
    </section>
  );
}
