// A crop's fields, to add one to a parcel or change one: checked as typed with the service's crop rules
// (crop-form.ts readCrop), the family offered from the account's own (a datalist) or typed as a new one, and filled
// in from the crop's name where the family list knows it (Lentil → Fabaceae) until the user picks one. A parcel has
// one active crop at a time: saving an active crop beside another asks to close that one (active-crop.ts closing).
import { useId, useState, type FormEvent } from 'react';
import { cropWarnings, emptyCrop, readCrop, type CropArgs, type CropDraft, type FamilyChoice } from './crop-form.ts';
import { closing, localDate, type CropLike } from './active-crop.ts';
import { inferFamily } from '../../../core/crops/infer-family.ts';

/** The other active crops saving closes, with the end each gets. */
export type Closing = ReturnType<typeof closing>;

interface Props {
  title: string;
  initial?: CropDraft;
  families: readonly FamilyChoice[];
  /** The parcel's hectares and its other crops, for the warnings (cropWarnings) and the one active crop. */
  parcelHectares: number;
  others: readonly CropLike[];
  /** Saves the crop, closing `close` first; a refusal's message is shown in the form and nothing is lost of what was typed. */
  save(crop: CropArgs, close: Closing): Promise<void>;
  cancel(): void;
}

const FIELDS: { key: Exclude<keyof CropDraft, 'active'>; label: string; type?: string; placeholder?: string }[] = [
  { key: 'campaign', label: 'Campaign', placeholder: '2025/2026' },
  { key: 'name', label: 'Crop', placeholder: 'Durum wheat' },
  { key: 'variety', label: 'Variety' },
  { key: 'family', label: 'Family' },
  { key: 'sowing', label: 'Sowing', type: 'date' },
  { key: 'closure', label: 'Closure', type: 'date' },
  { key: 'harvestedQty', label: 'Harvested quantity', placeholder: '4.5' },
  { key: 'area', label: 'Area (ha)' },
];

export function CropForm({ title, initial, families, parcelHectares, others, save, cancel }: Props) {
  const [draft, setDraft] = useState<CropDraft>(() => initial ?? emptyCrop());
  const [touched, setTouched] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  /** The family is the user's (typed, or the crop's own): the crop's name no longer fills it in. */
  const [ownFamily, setOwnFamily] = useState(() => (initial?.family ?? '') !== '');
  const [confirm, setConfirm] = useState<Closing | null>(null);
  const list = useId();
  const read = readCrop(draft, families);
  const problems = 'problems' in read ? read.problems : {};
  const warnings = cropWarnings(draft, parcelHectares, others);
  const inferred = !ownFamily && draft.family !== '';

  const change = (key: keyof CropDraft, value: string) => {
    const next = { ...draft, [key]: value };
    if (key === 'family') setOwnFamily(true);
    else if (key === 'name' && !ownFamily) next.family = inferFamily(value, families) ?? '';
    setDraft(next);
    setRefusal(null);
  };

  const store = async (crop: CropArgs, close: Closing) => {
    setSaving(true);
    try {
      await save(crop, close);
    } catch (err) {
      setRefusal(err instanceof Error ? err.message : String(err));
      setSaving(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!('crop' in read) || saving) return;
    const close = read.crop.active ? closing(others, read.crop.sowing, localDate()) : [];
    if (close.length) setConfirm(close);
    else void store(read.crop, []);
  };

  return (
    <form className="crop-form" aria-label={title} onSubmit={submit}
      onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); if (confirm) setConfirm(null); else cancel(); } }}>
      <h3>{title}</h3>
      <div className="crop-fields">
        {FIELDS.map((f, i) => {
          const problem = touched || draft[f.key] !== (initial ?? emptyCrop())[f.key] ? problems[f.key] : undefined;
          const hint = f.key === 'family' && inferred ? `${list}-inferred` : undefined;
          return (
            <label key={f.key}>{f.label}
              <input type={f.type ?? 'text'} value={draft[f.key]} placeholder={f.placeholder} autoFocus={i === 0} autoComplete="off"
                list={f.key === 'family' ? list : undefined} aria-invalid={problem !== undefined} aria-describedby={[hint, problem ? `${list}-${f.key}-problem` : null].filter(Boolean).join(' ') || undefined}
                onChange={(e) => change(f.key, e.target.value)} />
              {hint ? <span id={hint} className="hint muted">From the crop&apos;s name: type another to change it.</span> : null}
              {problem ? <span id={`${list}-${f.key}-problem`} role="alert" className="error">{problem}</span> : null}
            </label>
          );
        })}
      </div>
      <datalist id={list}>{families.map((f) => <option key={f.id} value={f.name} />)}</datalist>
      <label className="check"><input type="checkbox" checked={draft.active} onChange={(e) => { setDraft({ ...draft, active: e.target.checked }); setConfirm(null); }} /> Active (on the ground now)</label>
      {/* While asking to close the active crop, the question says it all: the warnings come back with Back. */}
      {confirm ? null : warnings.map((w) => <p key={w} className="warning" role="note">{w}</p>)}
      {refusal ? <p role="alert" className="error">Not saved: {refusal}</p> : null}
      {confirm && 'crop' in read ? (
        <div className="close-active" role="alertdialog" aria-label="Close the active crop?" aria-describedby={`${list}-close`}>
          <p id={`${list}-close`}>
            {confirm.map((c) => `${c.label} (ending ${c.closure})`).join(', ')} {confirm.length === 1 ? 'is' : 'are'} active on this parcel.
            A parcel has one active crop at a time: close {confirm.length === 1 ? 'it' : 'them'} and save this one?
          </p>
          <div className="buttons">
            <button type="button" autoFocus disabled={saving} onClick={() => void store(read.crop, confirm)}>Close {confirm.length === 1 ? 'it' : 'them'} and save</button>
            <button type="button" onClick={() => setConfirm(null)}>Back</button>
          </div>
        </div>
      ) : (
        <div className="buttons">
          <button type="submit" disabled={saving || (touched && 'problems' in read)}>Save crop</button>
          <button type="button" onClick={cancel}>Cancel</button>
        </div>
      )}
    </form>
  );
}
