// A cell of the rotation table in a campaign still to come: its planned crops (each a button that edits it, and
// draggable onto another planned cell), + to plan one, and the small form that names the crop and its family. Edits
// are crops like any (createCrop, updateCrop, deleteCrop: the outbox, Undo, the next sync). Esc in the form closes
// the form, not the table.
import { useState, type DragEvent, type FormEvent } from 'react';
import type { RotationCrop } from '../../../core/api.ts';
import type { Violation } from '../../../core/crops/plan-rules.ts';
import { inkOn } from '../../../core/crops/family-colours.ts';
import { cropColour, type CropColours } from './rotation-store.ts';
import { RULE_NAMES } from './plan-model.ts';
import { focusSoon } from '../focus/focus-soon.ts';

/** The drag's payload type: the dragged crop's id (only this table's cells accept it). */
export const CROP_DRAG = 'application/x-furrow-crop';

export interface CellActions {
  save(crop: RotationCrop | null, name: string, family: string | null): Promise<void>;
  remove(crop: RotationCrop): Promise<void>;
  move(cropId: string): Promise<void>;
  familyOf(name: string): string | null;
}

function CropEditor({ crop, label, actions, done }: { crop: RotationCrop | null; label: string; actions: CellActions; done(): void }) {
  const [name, setName] = useState(crop?.name ?? '');
  const [family, setFamily] = useState(crop?.family?.name ?? '');
  /** The family follows the name as typed until the user types a family. */
  const [ownFamily, setOwnFamily] = useState(crop?.family != null);
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError('Name the crop');
    actions.save(crop, name.trim(), family.trim() || null).then(done, (err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  };
  return (
    <form className="plan-editor" aria-label={label} onSubmit={submit} onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); done(); } }}>
      <input aria-label="Crop" list="plan-crop-names" value={name} autoFocus aria-invalid={error !== null}
        onChange={(e) => { setName(e.target.value); setError(null); if (!ownFamily) setFamily(actions.familyOf(e.target.value) ?? ''); }} />
      <input aria-label="Family" list="plan-families" value={family} placeholder="Family" onChange={(e) => { setFamily(e.target.value); setOwnFamily(true); }} />
      <span className="plan-editor-buttons">
        <button type="submit">Save</button>
        {crop ? <button type="button" onClick={() => { actions.remove(crop).then(done, (err: unknown) => setError(err instanceof Error ? err.message : String(err))); }}>Remove</button> : null}
        <button type="button" onClick={done}>Cancel</button>
      </span>
      {error ? <span role="alert" className="error">{error}</span> : null}
    </form>
  );
}

export function PlannedCell({ parcelName, campaign, crops, violations, colours, actions }: {
  parcelName: string; campaign: string; crops: RotationCrop[]; violations: Violation[]; colours: CropColours; actions: CellActions;
}) {
  /** 'new', a crop's id, or nothing being edited. */
  const [editing, setEditing] = useState<string | null>(null);
  const [over, setOver] = useState(false);
  const where = `${parcelName} in ${campaign}`;
  // The form gone (saved, removed, cancelled), the focus goes to the cell's + (never the page's body).
  const done = () => { setEditing(null); focusSoon(`td[data-cell="${CSS.escape(where)}"] .plan-add`, true); };
  const said = violations.map((v) => `${RULE_NAMES[v.rule]}: ${v.message}`).join('; ');
  const drop = (e: DragEvent) => {
    setOver(false);
    const id = e.dataTransfer.getData(CROP_DRAG);
    if (!id || crops.some((c) => c.id === id)) return;
    e.preventDefault();
    void actions.move(id);
  };
  const classes = ['planned', violations.length ? 'violates' : '', over ? 'drop-over' : ''].filter(Boolean).join(' ');
  return (
    <td className={classes} data-cell={where} title={said || undefined}
      onDragOver={(e) => { if (e.dataTransfer.types.includes(CROP_DRAG)) { e.preventDefault(); setOver(true); } }}
      onDragLeave={() => setOver(false)} onDrop={drop}>
      {crops.map((c) => {
        if (editing === c.id) return <CropEditor key={c.id} crop={c} label={`Change ${c.name ?? 'the crop'} on ${where}`} actions={actions} done={done} />;
        const colour = cropColour(colours, 'family', c.family?.name);
        return (
          <button key={c.id} type="button" className="cell-crop plan-crop" draggable data-crop={c.id} style={{ background: colour, color: inkOn(colour) }}
            aria-label={`Planned ${c.name ?? 'crop'} on ${where}: change or remove`} title={[c.name, c.family?.name, 'planned: drag it to another campaign or parcel'].filter(Boolean).join(' · ')}
            onClick={() => setEditing(c.id)} onDragStart={(e) => { e.dataTransfer.setData(CROP_DRAG, c.id); e.dataTransfer.effectAllowed = 'move'; }}>
            {c.name ?? 'Crop'}
          </button>
        );
      })}
      {editing === 'new'
        ? <CropEditor crop={null} label={`Plan a crop on ${where}`} actions={actions} done={done} />
        : <button type="button" className="plan-add" aria-label={`Plan a crop on ${where}`} title="Plan a crop here" onClick={() => setEditing('new')}>+</button>}
      {violations.length ? <span className="violation-mark" role="img" aria-label={said}>✖</span> : null}
    </td>
  );
}
