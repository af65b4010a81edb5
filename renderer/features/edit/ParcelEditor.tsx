// The selected parcel's name and metadata, editable: rename, and key-value rows (keys may hold spaces) to add,
// rename, remove and change, each checked as typed with the service's own rules (core/parcels/name.ts checkName,
// core/parcels/metadata.ts checkMetadata through metadata-rows.ts). Save sends the name and the metadata (replaced
// whole) that changed, through the backend's edit history: Undo takes it back.
import { useState, type FormEvent } from 'react';
import type { ParcelFeature } from '../../../core/api.ts';
import { checkName } from '../../../core/parcels/name.ts';
import { reporter } from '../../../core/parcels/problems.ts';
import { useApi } from '../../context.ts';
import { say } from '../../store.ts';
import { checkRows, rowsOf, sentence, type MetaRow } from './metadata-rows.ts';
import { focusSoon, savedParcel } from '../focus/focus-soon.ts';

const nameProblems = (name: string): string[] => {
  const r = reporter(0, '');
  checkName(name, r, 'name');
  return r.problems.map((p) => sentence(p.message));
};

/** Mounted with a key of the parcel's id, name and metadata: a change saved (or undone) starts it afresh. */
export function ParcelEditor({ parcel }: { parcel: ParcelFeature }) {
  const api = useApi();
  const before = parcel.properties.metadata as Record<string, unknown>;
  const [name, setName] = useState(parcel.properties.name);
  const [rows, setRows] = useState<MetaRow[]>(() => rowsOf(before));
  const [saving, setSaving] = useState(false);
  const badName = nameProblems(name);
  const checked = checkRows(rows, before);
  const nameChanged = name.trim() !== parcel.properties.name;
  const metaChanged = checked.metadata !== null && JSON.stringify(checked.metadata) !== JSON.stringify(parcel.properties.metadata);
  const rowsChanged = JSON.stringify(rows) !== JSON.stringify(rowsOf(before));
  const invalid = badName.length > 0 || checked.metadata === null;

  const edit = (i: number, patch: Partial<MetaRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (invalid || saving || !(nameChanged || metaChanged)) return;
    setSaving(true);
    try {
      const p = await api.updateParcel({ id: parcel.id, ...(nameChanged ? { name: name.trim() } : {}), ...(metaChanged ? { metadata: checked.metadata! } : {}) });
      say(`Saved ${p.properties.name}: it is sent at the next sync.`);
      // The form starts afresh with what was saved: the focus goes to the parcel's heading, not the page's body.
      focusSoon(savedParcel(p.id), true);
    } catch (err) {
      say(`Not saved: ${err instanceof Error ? err.message : String(err)}`, true);
      setSaving(false);
    }
  };

  return (
    <form className="parcel-editor" aria-label="Edit parcel" onSubmit={(e) => void save(e)}>
      <label>Name
        <input value={name} onChange={(e) => setName(e.target.value)} aria-invalid={badName.length > 0} aria-describedby={badName.length ? 'name-problem' : undefined} />
      </label>
      {badName.length ? <p id="name-problem" role="alert" className="error">{badName.join(' ')}</p> : null}
      <fieldset className="metadata">
        <legend>Metadata</legend>
        {rows.length === 0 ? <p className="muted">No metadata yet: Add key.</p> : null}
        {rows.map((row, i) => {
          const p = checked.rows[i]!;
          const problems = [...p.key, ...p.value];
          const n = i + 1;
          return (
            <div className="meta-row" key={i} role="group" aria-label={`Metadata ${n}`}>
              <input aria-label={`Key ${n}`} placeholder="key" value={row.key} onChange={(e) => edit(i, { key: e.target.value })}
                aria-invalid={p.key.length > 0} aria-describedby={problems.length ? `meta-problem-${i}` : undefined} />
              <input aria-label={`Value ${n}`} placeholder="value" value={row.value} onChange={(e) => edit(i, { value: e.target.value })}
                aria-invalid={p.value.length > 0} aria-describedby={problems.length ? `meta-problem-${i}` : undefined} />
              <button type="button" aria-label={row.key ? `Remove key ${row.key}` : `Remove row ${n}`} title="Remove this key" onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}>✕</button>
              {problems.length ? <p id={`meta-problem-${i}`} role="alert" className="error">{problems.join(' ')}</p> : null}
            </div>
          );
        })}
        {checked.whole.length ? <p role="alert" className="error">{checked.whole.join(' ')}</p> : null}
        <button type="button" onClick={() => { setRows((rs) => [...rs, { key: '', value: '' }]); focusSoon(`.parcel-editor [aria-label="Key ${rows.length + 1}"]`, true); }}>+ Add key</button>
      </fieldset>
      <div className="buttons">
        <button type="submit" disabled={invalid || saving || !(nameChanged || metaChanged)}>Save changes</button>
        <button type="button" disabled={!nameChanged && !rowsChanged} onClick={() => { setName(parcel.properties.name); setRows(rowsOf(before)); focusSoon('.parcel-editor input[name="name"], .parcel-editor input', true); }}>Reset</button>
      </div>
    </form>
  );
}
