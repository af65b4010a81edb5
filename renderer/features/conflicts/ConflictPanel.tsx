// The selected parcel's open conflict, side by side: each field that differs, mine against the service's, and the
// ways out (`resolve`): keep mine or keep theirs whole, or — for an edit — mine or theirs field by field (a metadata
// key, the name, the shape) and then Keep chosen. Without it a conflict could only be settled from the CLI.
// After a choice the host's change event reloads the parcel (its state goes pending or synced) and the counts.
import { useEffect, useState } from 'react';
import type { ParcelConflict, ParcelFeature } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { kindNote, resolvedFieldsMessage, resolvedMessage } from './conflict-words.ts';
import { ConflictSides, type Side } from './ConflictSides.tsx';
import { focusSoon, savedParcel } from '../focus/focus-soon.ts';

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

  const settle = async (which: Side, fields?: Record<string, Side>) => {
    setBusy(true);
    try {
      await api.resolve({ conflict: conflict.id, keep: which, ...(fields ? { fields } : {}) });
      // Named as it is now: the service's name when that is the one kept.
      const theirName = conflict.differences.find((d) => d.field === 'name')?.theirs;
      const name = fields?.name === 'theirs' && theirName ? theirName : parcel.properties.name;
      say(fields ? resolvedFieldsMessage(fields, name) : resolvedMessage(conflict, which, parcel.properties.name));
      // The conflict's buttons go with it: the focus goes to the parcel's heading, never the page's body.
      focusSoon(savedParcel(parcel.id), true);
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
      {conflict.differences.length ? null : <p className="muted">{conflict.reason}</p>}
      <ConflictSides conflict={conflict.id} differences={conflict.differences} byField={conflict.kind === 'edit'} busy={busy} settle={(w, f) => void settle(w, f)} />
    </section>
  );
}
