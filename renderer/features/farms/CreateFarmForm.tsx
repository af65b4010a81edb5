// Create farm: an inline form under the farms list. The name is checked with core's rules (core/parcels/name.ts:
// trimmed, not empty, at most 255 characters) before the backend's createFarm; the new farm becomes the one new
// parcels go to. N opens it; Esc closes it.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { farmNameProblem } from './farm-name.ts';
import { useApi } from '../../context.ts';
import { refreshAccount } from '../../account.ts';
import { say, set, useApp } from '../../store.ts';
import { isShortcut, keyHint, useKeyName } from '../../keymap.ts';
import { focusSoon } from '../focus/focus-soon.ts';
import { onPanelAsked } from '../../panels.ts';

export function CreateFarmForm() {
  const api = useApi();
  const account = useApp((s) => s.account?.id);
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const key = useKeyName('farm');

  useEffect(() => { if (open) field.current?.focus(); }, [open]);
  // Asked by another feature (a parcel drawn in an account without farms: NewParcelForm's "Create a farm").
  useEffect(() => onPanelAsked('create-farm', () => { setOpen(true); field.current?.focus(); }), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isShortcut(e, 'farm') && account) { e.preventDefault(); setOpen(true); }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [account]);

  const close = () => { setOpen(false); setName(''); setProblem(null); };
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (!account || saving) return;
    const checked = farmNameProblem(name);
    if (!checked.name) { setProblem(checked.problem); return; }
    setSaving(true);
    try {
      const farm = await api.createFarm({ account, name: checked.name });
      await refreshAccount(api);
      set({ farmId: farm.id });
      say(`Created farm ${farm.name}: new parcels go to it; it is sent at the next sync.`);
      close();
      // The form is gone: the focus goes to the new farm in the list, never the page's body.
      focusSoon(`.farm[data-farm="${CSS.escape(farm.id)}"]`, true);
    } catch (err) {
      setProblem(`Not created: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setSaving(false);
    }
  };

  if (!open) {
    return (
      <button type="button" className="new-farm" aria-label="Create farm" aria-keyshortcuts={key ?? undefined} title={`Create farm${keyHint(key)}`} disabled={!account} onClick={() => setOpen(true)}>
        + Create farm
      </button>
    );
  }
  return (
    <form className="create-farm" aria-label="Create farm" onSubmit={(e) => void create(e)} onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); close(); } }}>
      <label>Farm name{' '}
        <input ref={field} value={name} maxLength={255} aria-invalid={problem !== null} aria-describedby={problem ? 'create-farm-problem' : undefined}
          onChange={(e) => { setName(e.target.value); setProblem(null); }} />
      </label>
      {problem ? <p id="create-farm-problem" className="error" role="alert">{problem}</p> : null}
      <div className="buttons">
        <button type="submit" disabled={saving}>Create</button>
        <button type="button" onClick={close}>Cancel</button>
      </div>
    </form>
  );
}
