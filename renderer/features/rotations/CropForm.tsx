// A crop's fields, to add one to a parcel or change one: checked as typed with the service's crop rules
// (crop-form.ts readCrop), the family offered from the account's own (a datalist) or typed as a new one.
import { useId, useState, type FormEvent } from 'react';
import { cropWarnings, emptyCrop, readCrop, type CropArgs, type CropDraft, type FamilyChoice } from './crop-form.ts';

interface Props {
  title: string;
  initial?: CropDraft;
  families: readonly FamilyChoice[];
  /** The parcel's hectares and its other crops, for the warnings (cropWarnings). */
  parcelHectares: number;
  others: readonly { name: string | null; campaign: string | null; active: boolean }[];
  /** Saves the crop; a refusal's message is shown in the form and nothing is lost of what was typed. */
  save(crop: CropArgs): Promise<void>;
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
  const list = useId();
  const read = readCrop(draft, families);
  const problems = 'problems' in read ? read.problems : {};
  const warnings = cropWarnings(draft, parcelHectares, others);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!('crop' in read) || saving) return;
    setSaving(true);
    try {
      await save(read.crop);
    } catch (err) {
      setRefusal(err instanceof Error ? err.message : String(err));
      setSaving(false);
    }
  };

  return (
    <form className="crop-form" aria-label={title} onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); cancel(); } }}>
      <h3>{title}</h3>
      <div className="crop-fields">
        {FIELDS.map((f, i) => {
          const problem = touched || draft[f.key] !== (initial ?? emptyCrop())[f.key] ? problems[f.key] : undefined;
          return (
            <label key={f.key}>{f.label}
              <input type={f.type ?? 'text'} value={draft[f.key]} placeholder={f.placeholder} autoFocus={i === 0} autoComplete="off"
                list={f.key === 'family' ? list : undefined} aria-invalid={problem !== undefined} aria-describedby={problem ? `${list}-${f.key}-problem` : undefined}
                onChange={(e) => { setDraft({ ...draft, [f.key]: e.target.value }); setRefusal(null); }} />
              {problem ? <span id={`${list}-${f.key}-problem`} role="alert" className="error">{problem}</span> : null}
            </label>
          );
        })}
      </div>
      <datalist id={list}>{families.map((f) => <option key={f.id} value={f.name} />)}</datalist>
      <label className="check"><input type="checkbox" checked={draft.active} onChange={(e) => setDraft({ ...draft, active: e.target.checked })} /> Active (on the ground now)</label>
      {warnings.map((w) => <p key={w} className="warning" role="note">{w}</p>)}
      {refusal ? <p role="alert" className="error">Not saved: {refusal}</p> : null}
      <div className="buttons">
        <button type="submit" disabled={saving || (touched && 'problems' in read)}>Save crop</button>
        <button type="button" onClick={cancel}>Cancel</button>
      </div>
    </form>
  );
}
