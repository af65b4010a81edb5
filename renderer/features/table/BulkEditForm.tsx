// A bulk edit of the table's selection (core/api-table.ts bulkEditParcels): set a metadata key to a value (text, a
// number, yes or no) or remove it, or add an active crop — on every parcel selected, as ONE edit the host checks whole
// (one parcel refused: none changes), which Ctrl+Z undoes in one step and the next sync sends in batches.
import { useState, type FormEvent } from 'react';
import { MAX_BULK_EDIT } from '../../../core/table/columns.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { useTable } from './table-store.ts';
import { bulkEditOf, type Kind } from './bulk-edit.ts';

export function BulkEditForm({ keys, onDone }: { keys: string[]; onDone: () => void }) {
  const api = useApi();
  const account = useApp((s) => s.account?.id);
  const selected = useTable((s) => s.selected);
  const [kind, setKind] = useState<Kind>('text');
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [campaign, setCampaign] = useState('');
  const [busy, setBusy] = useState(false);
  const n = selected.size;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!account || busy || n === 0) return;
    if (n > MAX_BULK_EDIT) return void say(`At most ${MAX_BULK_EDIT.toLocaleString('en-US')} parcels in one bulk edit: ${n.toLocaleString('en-US')} are selected.`, true);
    const edit = bulkEditOf(kind, key, value, campaign);
    if (typeof edit === 'string') return void say(edit, true);
    setBusy(true);
    try {
      const r = await api.bulkEditParcels({ account, parcels: [...selected], edit });
      const what = edit.crop ? `Added ${edit.crop.name} to` : edit.metadata!.value === null ? `Removed ${edit.metadata!.key} from` : `Set ${edit.metadata!.key} on`;
      say(`${what} ${r.parcels.toLocaleString('en-US')} parcel${r.parcels === 1 ? '' : 's'}: one edit, Ctrl+Z undoes it.`);
      onDone();
    } catch (err) {
      say(`Not changed: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="bulk-edit" aria-label="Bulk edit the selected parcels" onSubmit={(e) => void submit(e)}>
      <span className="muted">Bulk edit {n.toLocaleString('en-US')}:</span>
      <select aria-label="What to change" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
        <option value="text">Set key to text</option>
        <option value="number">Set key to a number</option>
        <option value="yes">Set key to yes</option>
        <option value="no">Set key to no</option>
        <option value="remove">Remove key</option>
        <option value="crop">Add an active crop</option>
      </select>
      {kind === 'crop' ? (
        <>
          <input aria-label="Crop name" placeholder="Crop" value={value} onChange={(e) => setValue(e.target.value)} size={12} />
          <input aria-label="Campaign" placeholder="Campaign" value={campaign} onChange={(e) => setCampaign(e.target.value)} size={8} />
        </>
      ) : (
        <>
          <input aria-label="Key to set" placeholder="Key" list="table-keys" value={key} onChange={(e) => setKey(e.target.value)} size={12} />
          <datalist id="table-keys">{keys.map((k) => <option key={k} value={k} />)}</datalist>
          {kind === 'text' || kind === 'number' ? <input aria-label="Value to set" placeholder="Value" value={value} onChange={(e) => setValue(e.target.value)} size={12} inputMode={kind === 'number' ? 'decimal' : undefined} /> : null}
        </>
      )}
      <button type="submit" aria-disabled={busy || n === 0 || undefined}>Apply to {n.toLocaleString('en-US')}</button>
    </form>
  );
}
