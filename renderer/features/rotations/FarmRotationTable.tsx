// A farm's crop rotation at a glance, for farm managers: its parcels × campaigns, each cell the crops of that season
// coloured by family, a warning mark where a family follows itself on the parcel (core/crops/rotation.ts, through the
// backend's farmRotation), one campaign or all. A parcel's name selects it on the map. Over the map; Esc closes it.
import { useEffect, useState } from 'react';
import type { FarmRotation, RotationCrop } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { set, useApp } from '../../store.ts';
import { hectares } from '../../states.ts';
import { cropColour, setRotations, useRotations, type CropColours } from './rotation-store.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { zoomToParcel } from '../zoom/zoom.ts';
import { inkOn } from '../../../core/crops/family-colours.ts';
import './rotations.css';

const label = (c: string | null) => c ?? 'No campaign';
const close = () => setRotations({ table: null });

function Cell({ crops, repeats, colours }: { crops: RotationCrop[]; repeats: boolean; colours: CropColours }) {
  if (!crops.length) return <td className="empty">—</td>;
  const warning = crops.flatMap((c) => c.warnings.map((w) => w.message)).join('; ');
  return (
    <td className={repeats ? 'repeats' : undefined} title={warning || undefined}>
      {crops.map((c) => {
        const colour = cropColour(colours, 'family', c.family?.name);
        return (
          <span key={c.id} className="cell-crop" style={{ background: colour, color: inkOn(colour) }} title={[c.name, c.variety, c.family?.name, c.active ? 'active' : null].filter(Boolean).join(' · ')}>
            {c.name ?? 'Crop'}{c.active ? ' •' : ''}
          </span>
        );
      })}
      {repeats ? <span className="repeat-mark" role="img" aria-label={warning || 'The family follows itself'}>⚠</span> : null}
    </td>
  );
}

export function FarmRotationTable() {
  const api = useApi();
  const farm = useRotations((s) => s.table);
  const version = useApp((s) => s.version);
  const farms = useApp((s) => s.farms);
  const colours = useRotations((s) => s.colours);
  const [campaign, setCampaign] = useState<string>('');
  const [all, setAll] = useState<(string | null)[]>([]);
  const [grid, setGrid] = useState<FarmRotation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const panel = useDialogFocus(close, { opener: '.rotation-open' });

  useEffect(() => {
    if (!farm) return;
    let live = true;
    // "" is every campaign; the select's values are the labels, and the crops without one have no filter value.
    api.farmRotation({ farm, ...(campaign ? { campaign } : {}) }).then((g) => {
      if (!live) return;
      setGrid(g);
      setError(null);
      if (!campaign) setAll(g.campaigns);
    }, (err: unknown) => { if (live) setError(err instanceof Error ? err.message : String(err)); });
    return () => { live = false; };
  }, [api, farm, campaign, version]);

  const name = farms.find((f) => f.id === farm)?.name ?? 'Farm';
  const repeats = grid?.parcels.reduce((n, p) => n + p.cells.filter((c) => c.familyRepeats).length, 0) ?? 0;
  const families = new Map<string, string>();
  for (const p of grid?.parcels ?? []) for (const c of p.cells) for (const crop of c.crops) if (crop.family) families.set(crop.family.name, cropColour(colours, 'family', crop.family.name));

  return (
    <section className="rotation-table" role="dialog" aria-label={`Crop rotation of ${name}`} tabIndex={-1} ref={panel}>
      <div className="rotation-head">
        <h2>Crop rotation — {name}</h2>
        <label>Campaign{' '}
          <select value={campaign} onChange={(e) => setCampaign(e.target.value)}>
            <option value="">All campaigns</option>
            {all.filter((c): c is string => c !== null).map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
        <button type="button" aria-label="Close the rotation table" title="Close (Esc)" onClick={close}>✕</button>
      </div>
      {error ? <p role="alert" className="error">{error}</p> : null}
      {grid ? (
        <>
          <p className="muted">
            {grid.parcels.length} parcel{grid.parcels.length === 1 ? '' : 's'}; • marks the active crop.{' '}
            {repeats ? <span className="warning">⚠ {repeats} place{repeats === 1 ? '' : 's'} where a family follows itself.</span> : 'No family follows itself.'}
          </p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr><th scope="col">Parcel</th>{grid.campaigns.map((c) => <th key={label(c)} scope="col">{label(c)}</th>)}</tr>
              </thead>
              <tbody>
                {grid.parcels.map((p) => (
                  <tr key={p.parcel}>
                    <th scope="row">
                      <button type="button" className="link" title="Select it and show it on the map" onClick={() => { set({ selectedId: p.parcel }); close(); void zoomToParcel(api, p.parcel); }}>{p.name}</button>
                      <span className="muted"> {hectares(p.hectares)}</span>
                    </th>
                    {p.cells.map((c) => <Cell key={label(c.campaign)} crops={c.crops} repeats={c.familyRepeats} colours={colours} />)}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {families.size ? (
            <ul className="family-key" aria-label="Families">
              {[...families].sort(([a], [b]) => a.localeCompare(b)).map(([f, colour]) => <li key={f}><span className="swatch" style={{ background: colour }} />{f}</li>)}
            </ul>
          ) : null}
        </>
      ) : <p className="muted">Reading…</p>}
    </section>
  );
}
