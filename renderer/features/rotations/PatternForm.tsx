// A rotation pattern applied across parcels: a crop for each campaign to plan (typed, or copied from one parcel's
// plan), written on every parcel ticked in the table — each cell's planned crop set to it (plan-model.ts
// patternEdits), each write a crop edit of its own (Undo takes them back one by one).
import { useState, type FormEvent } from 'react';
import type { FarmRotation } from '../../../core/api.ts';
import { patternOf } from './plan-model.ts';

export function PatternForm({ grid, campaigns, selected, apply }: {
  grid: FarmRotation; campaigns: string[]; selected: string[];
  apply(pattern: Map<string, string>): Promise<number>;
}) {
  const [pattern, setPattern] = useState<Map<string, string>>(() => new Map(campaigns.map((c) => [c, ''])));
  const [from, setFrom] = useState('');
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!selected.length) return setSaid({ text: 'Tick the parcels to plan first (the box before each name).', error: true });
    if (![...pattern.values()].some((v) => v.trim())) return setSaid({ text: 'Name a crop for at least one campaign.', error: true });
    setBusy(true);
    apply(pattern).then((n) => setSaid({ text: `Applied to ${selected.length} parcel${selected.length === 1 ? '' : 's'}: ${n} crop edit${n === 1 ? '' : 's'}.`, error: false }),
      (err: unknown) => setSaid({ text: `Not all applied: ${err instanceof Error ? err.message : String(err)}`, error: true })).finally(() => setBusy(false));
  };
  return (
    <form className="plan-pattern" aria-label="Apply a rotation pattern" onSubmit={submit}>
      <strong>Pattern</strong>
      <label>Copy from{' '}
        <select value={from} onChange={(e) => { setFrom(e.target.value); if (e.target.value) setPattern(patternOf(grid, e.target.value, campaigns)); }}>
          <option value="">(type the crops)</option>
          {grid.parcels.map((p) => <option key={p.parcel} value={p.parcel}>{p.name}</option>)}
        </select>
      </label>
      {campaigns.map((c) => (
        <label key={c}>{c}{' '}
          <input list="plan-crop-names" size={12} value={pattern.get(c) ?? ''} onChange={(e) => setPattern(new Map(pattern).set(c, e.target.value))} />
        </label>
      ))}
      <button type="submit" aria-disabled={busy || undefined}>Apply to {selected.length} ticked parcel{selected.length === 1 ? '' : 's'}</button>
      {said ? <span role={said.error ? 'alert' : 'status'} className={said.error ? 'error' : 'muted'}>{said.text}</span> : null}
    </form>
  );
}
