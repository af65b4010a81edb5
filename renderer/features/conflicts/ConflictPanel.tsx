// The selected parcel's open conflict, side by side: each field that differs, mine against the service's, and the
// ways out (`resolve`): keep mine or keep theirs whole, or — for an edit — mine or theirs field by field (a metadata
// key, the name, the shape) and then Keep chosen. Without it a conflict could only be settled from the CLI.
// After a choice the host's change event reloads the parcel (its state goes pending or synced) and the counts.
import { useEffect, useState } from 'react';
import type { ParcelConflict, ParcelFeature } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { fieldLabel, kindNote, resolvedFieldsMessage, resolvedMessage, sideText } from './conflict-words.ts';

type Side = 'mine' | 'theirs';
import './conflicts.css';

export function ConflictPanel({ parcel }: { parcel: ParcelFeature }) {
  const api = useApi();
  const version = useApp((s) => s.version);
  const inConflict = parcel.properties.state === 'conflict';
  const [conflict, setConflict] = useState<ParcelConflict | null>(null);
  const [busy, setBusy] = useState(false);
  const [choices, setChoices] = useState<Record<string, Side>>({});
  useEffect(() => setChoices({}), [conflict?.id]);
  useEffect(() => {
    let live = true;
    if (!inConflict) { setConflict(null); return; }
    api.parcelConflict({ id: parcel.id }).then((c) => { if (live) setConflict(c); }, () => { if (live) setConflict(null); });
    return () => { live = false; };
  }, [api, parcel.id, inConflict, version]);
  // A conflict on one of the parcel's crops is not the parcel's own: nothing to choose here.
  if (!inConflict || !conflict) return null;

  const settle = async (which: Side, fields?: Record<string, Side>) => {
    setBusy(true);
    try {
      await api.resolve({ conflict: conflict.id, keep: which, ...(fields ? { fields } : {}) });
      // Named as it is now: the service's name when that is the one kept.
      const theirName = conflict.differences.find((d) => d.field === 'name')?.theirs;
      const name = fields?.name === 'theirs' && theirName ? theirName : parcel.properties.name;
      say(fields ? resolvedFieldsMessage(fields, name) : resolvedMessage(conflict, which, parcel.properties.name));
    } catch (err) {
      say(`Not settled: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };
  const note = kindNote(conflict.kind);
  // Field by field only where both sides are versions of the parcel, and there is more than one field to choose.
  const byField = conflict.kind === 'edit' && conflict.differences.length > 1;
  const allChosen = byField && conflict.differences.every((d) => choices[d.field]);
  const choose = (field: string, side: Side) => setChoices((c) => ({ ...c, [field]: side }));
  return (
    <section className="conflict" aria-label="Conflict">
      <h3>Changed here and on the service</h3>
      {note ? <p>{note}</p> : null}
      {conflict.differences.length ? (
        <table aria-label="Both versions">
          <thead><tr><th scope="col">Mine</th><th scope="col">Theirs (on the service)</th></tr></thead>
          {/* Each field over its two sides: the panel is narrow, and a metadata key beside them broke mid-word. */}
          {conflict.differences.map((d) => (
            <tbody key={d.field} className={d.overlaps ? 'overlaps' : undefined} data-conflict-field={d.field}>
              <tr><th scope="rowgroup" colSpan={2}>{fieldLabel(d.field)}</th></tr>
              <tr>
                {(['mine', 'theirs'] as const).map((side) => (
                  <td key={side} data-side={side}>
                    {byField ? (
                      <label className="pick">
                        <input type="radio" name={`keep-${conflict.id}-${d.field}`} checked={choices[d.field] === side} disabled={busy}
                          aria-label={`${fieldLabel(d.field)}: keep ${side === 'mine' ? 'mine' : "the service's"}`} onChange={() => choose(d.field, side)} />
                        <span>{sideText(side === 'mine' ? d.mine : d.theirs)}</span>
                      </label>
                    ) : sideText(side === 'mine' ? d.mine : d.theirs)}
                  </td>
                ))}
              </tr>
            </tbody>
          ))}
        </table>
      ) : <p className="muted">{conflict.reason}</p>}
      <div className="buttons">
        <button type="button" disabled={busy} onClick={() => void settle('mine')} title="Send my version to the service at the next sync">Keep mine</button>
        <button type="button" disabled={busy} onClick={() => void settle('theirs')} title="Take the service's version here">Keep theirs</button>
        {byField ? (
          <button type="button" disabled={busy || !allChosen} onClick={() => void settle('mine', choices)}
            title={allChosen ? 'Each field as chosen above; what is kept from mine is sent at the next sync' : 'Choose mine or theirs on every row first'}>Keep chosen</button>
        ) : null}
      </div>
    </section>
  );
}
