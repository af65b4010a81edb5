// An edit's two sides, field by field, and the ways out: keep mine or keep theirs whole, or — with more than one field
// — mine or theirs on each (a radio per side, named "<field>: keep mine" / "keep the service's") and Keep chosen, once
// every field has a choice. Shared by the parcel panel and the sync cockpit (a crop's conflict settles there).
import { useEffect, useState } from 'react';
import type { SyncDetails } from '../../../core/api.ts';
import { fieldLabel, sideText } from './conflict-words.ts';
import './conflicts.css';

export type Side = 'mine' | 'theirs';
type Difference = SyncDetails['conflicts'][number]['differences'][number];

export interface ConflictSidesProps {
  conflict: number;
  differences: readonly Difference[];
  /** Field by field only where both sides are versions of the same thing (an edit). */
  byField: boolean;
  busy: boolean;
  settle(which: Side, fields?: Record<string, Side>): void;
}

export function ConflictSides({ conflict, differences, byField: edit, busy, settle }: ConflictSidesProps) {
  const [choices, setChoices] = useState<Record<string, Side>>({});
  useEffect(() => setChoices({}), [conflict]);
  const byField = edit && differences.length > 1;
  const allChosen = byField && differences.every((d) => choices[d.field]);
  const choose = (field: string, side: Side) => setChoices((c) => ({ ...c, [field]: side }));
  return (
    <>
      {differences.length ? (
        <table aria-label="Both versions" className="conflict-sides">
          <thead><tr><th scope="col">Mine</th><th scope="col">Theirs (on the service)</th></tr></thead>
          {/* Each field over its two sides: the panel is narrow, and a metadata key beside them broke mid-word. */}
          {differences.map((d) => (
            <tbody key={d.field} className={d.overlaps ? 'overlaps' : undefined} data-conflict-field={d.field}>
              <tr><th scope="rowgroup" colSpan={2}>{fieldLabel(d.field)}</th></tr>
              <tr>
                {(['mine', 'theirs'] as const).map((side) => (
                  <td key={side} data-side={side}>
                    {byField ? (
                      <label className="pick">
                        <input type="radio" name={`keep-${conflict}-${d.field}`} checked={choices[d.field] === side} disabled={busy}
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
      ) : null}
      <div className="buttons">
        <button type="button" disabled={busy} onClick={() => settle('mine')} title="Send my version to the service at the next sync">Keep mine</button>
        <button type="button" disabled={busy} onClick={() => settle('theirs')} title="Take the service's version here">Keep theirs</button>
        {byField ? (
          <button type="button" disabled={busy || !allChosen} onClick={() => settle('mine', choices)}
            title={allChosen ? 'Each field as chosen above; what is kept from mine is sent at the next sync' : 'Choose mine or theirs on every row first'}>Keep chosen</button>
        ) : null}
      </div>
    </>
  );
}
