// A farm's crop rotation at a glance, and its plan, for farm managers: its parcels × campaigns, each cell the crops of
// that season coloured by family, a warning mark where a family follows itself on the parcel (core/crops/rotation.ts,
// through the backend's farmRotation), one campaign or all. The two campaigns after the current one are the plan:
// crops planned there (PlannedCell), a pattern applied across ticked parcels (PatternForm), a crop dragged to another
// cell, every edit checked at once against the farm's rule set (core/crops/plan-rules.ts; PlanRules edits it), each
// violation named on its cell and listed with its rule; the campaign summary (CampaignSummary). A parcel's name
// selects it on the map. Over the map; Esc closes it.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { FarmRotation, FarmRules, RotationCrop } from '../../../core/api.ts';
import type { Violation } from '../../../core/crops/plan-rules.ts';
import { useApi } from '../../context.ts';
import { say, set, useApp } from '../../store.ts';
import { hectares } from '../../states.ts';
import { cropColour, setRotations, useRotations, type CropColours } from './rotation-store.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { zoomToParcel } from '../zoom/zoom.ts';
import { inkOn } from '../../../core/crops/family-colours.ts';
import { cellCrops, cellKey, familyFor, isPlanned, patternEdits, placeViolations, planColumns, RULE_NAMES, type PlanEdit } from './plan-model.ts';
import { PlannedCell, type CellActions } from './PlannedCell.tsx';
import { PatternForm } from './PatternForm.tsx';
import { PlanRules } from './PlanRules.tsx';
import { CampaignSummary } from './CampaignSummary.tsx';
import type { FamilyChoice } from './crop-form.ts';
import './rotations.css';
import './plan.css';

const label = (c: string | null) => c ?? 'No campaign';
const close = () => setRotations({ table: null });
type View = 'table' | 'rules' | 'summary';

function Cell({ crops, repeats, violations, colours }: { crops: RotationCrop[]; repeats: boolean; violations: Violation[]; colours: CropColours }) {
  if (!crops.length) return <td className="empty">—</td>;
  const warning = crops.flatMap((c) => c.warnings.map((w) => w.message)).join('; ');
  const broken = violations.map((v) => `${RULE_NAMES[v.rule]}: ${v.message}`).join('; ');
  return (
    <td className={[repeats ? 'repeats' : '', violations.length ? 'violates' : ''].filter(Boolean).join(' ') || undefined} title={[warning, broken].filter(Boolean).join('; ') || undefined}>
      {crops.map((c) => {
        const colour = cropColour(colours, 'family', c.family?.name);
        return (
          <span key={c.id} className="cell-crop" style={{ background: colour, color: inkOn(colour) }} title={[c.name, c.variety, c.family?.name, c.active ? 'active' : null].filter(Boolean).join(' · ')}>
            {c.name ?? 'Crop'}{c.active ? ' •' : ''}
          </span>
        );
      })}
      {repeats ? <span className="repeat-mark" role="img" aria-label={warning || 'The family follows itself'}>⚠</span> : null}
      {violations.length ? <span className="violation-mark" role="img" aria-label={broken}>✖</span> : null}
    </td>
  );
}

function Violations({ list, names }: { list: Violation[]; names: Map<string, string> }) {
  if (!list.length) return <p className="plan-ok" role="status">✓ The plan keeps every rule of this farm&apos;s rule set.</p>;
  return (
    <section className="plan-violations" aria-label="Rule violations">
      <strong>✖ {list.length} rule violation{list.length === 1 ? '' : 's'}</strong>
      <ul>
        {/* The farm's own (diversification) first: one per campaign, above the parcels' many. */}
        {[...list].sort((a, b) => Number(a.parcel !== null) - Number(b.parcel !== null)).map((v, i) => (
          <li key={i} data-rule={v.rule}><span className="rule">{RULE_NAMES[v.rule]}</span> · {v.parcel === null ? 'the farm' : names.get(v.parcel)} · {v.campaign}: {v.message}</li>
        ))}
      </ul>
    </section>
  );
}

export function FarmRotationTable() {
  const api = useApi();
  const farm = useRotations((s) => s.table);
  const version = useApp((s) => s.version);
  const farms = useApp((s) => s.farms);
  const account = useApp((s) => s.account?.id);
  const colours = useRotations((s) => s.colours);
  const [campaign, setCampaign] = useState<string>('');
  const [grid, setGrid] = useState<FarmRotation | null>(null);
  const [rules, setRules] = useState<FarmRules | null>(null);
  const [families, setFamilies] = useState<FamilyChoice[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [view, setView] = useState<View>('table');
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [tick, setTick] = useState(0);
  const panel = useDialogFocus(close, { opener: '.rotation-open' });
  const reread = () => setTick((t) => t + 1);

  useEffect(() => {
    if (!farm) return;
    let live = true;
    // The whole history always: the rules read it all, one campaign is only what the table shows.
    Promise.all([api.farmRotation({ farm }), api.rotationRules({ farm })]).then(([g, r]) => {
      if (!live) return;
      setGrid(g);
      setRules((old) => (old && old.farm === r.farm ? old : r));
      setError(null);
    }, (err: unknown) => { if (live) setError(err instanceof Error ? err.message : String(err)); });
    return () => { live = false; };
  }, [api, farm, version, tick]);
  useEffect(() => {
    let live = true;
    if (account) api.cropFamilies({ account }).then((f) => { if (live) setFamilies(f); }, () => {});
    return () => { live = false; };
  }, [api, account]);

  const columns = useMemo(() => (grid ? planColumns(grid) : []), [grid]);
  const shown = campaign ? [campaign] : columns;
  const planned = columns.filter((c): c is string => c !== null && grid !== null && isPlanned(c, grid));
  const placed = useMemo(() => (grid && rules ? placeViolations(grid, rules.rules) : null), [grid, rules]);
  const familyOf = useCallback((n: string) => (grid ? familyFor(n, grid, families) : null), [grid, families]);

  const name = farms.find((f) => f.id === farm)?.name ?? 'Farm';
  const repeats = grid?.parcels.reduce((n, p) => n + p.cells.filter((c) => c.familyRepeats && (!campaign || c.campaign === campaign)).length, 0) ?? 0;
  const legend = new Map<string, string>();
  for (const p of grid?.parcels ?? []) for (const c of p.cells) for (const crop of c.crops) if (crop.family) legend.set(crop.family.name, cropColour(colours, 'family', crop.family.name));
  const cropNames = [...new Set(grid?.parcels.flatMap((p) => p.cells.flatMap((c) => c.crops.map((x) => x.name ?? ''))).filter(Boolean))].sort();
  const parcelNames = new Map(grid?.parcels.map((p) => [p.parcel, p.name]) ?? []);

  const family = (f: string | null) => (f ? { name: f } : null);
  const run = async (edit: PlanEdit) => {
    if (edit.kind === 'create') await api.createCrop({ parcel: edit.parcel, campaign: edit.campaign, name: edit.name, family: family(edit.family), active: false });
    else if (edit.kind === 'update') await api.updateCrop({ id: edit.id, name: edit.name, family: family(edit.family) });
    else await api.deleteCrop({ id: edit.id });
  };
  const actionsFor = (parcel: string, parcelName: string, c: string): CellActions => ({
    familyOf,
    save: async (crop, cropName, fam) => {
      await run(crop ? { kind: 'update', id: crop.id, name: cropName, family: fam } : { kind: 'create', parcel, campaign: c, name: cropName, family: fam });
      say(`${crop ? 'Changed' : 'Planned'} ${cropName} on ${parcelName} in ${c}: it is sent at the next sync.`);
      reread();
    },
    remove: async (crop) => {
      await run({ kind: 'delete', id: crop.id });
      say(`Removed the planned ${crop.name ?? 'crop'} from ${parcelName} (${c}): Undo (Ctrl+Z) brings it back.`);
      reread();
    },
    move: async (id) => {
      const from = grid?.parcels.flatMap((p) => p.cells.flatMap((x) => x.crops)).find((x) => x.id === id);
      if (!from || !grid || !isPlanned(from.campaign, grid)) return;
      try {
        if (from.parcel === parcel) await api.updateCrop({ id, campaign: c });
        else {
          // A crop stays on its parcel (the service's crop keeps its parcel): moved, it is planned anew there.
          await api.createCrop({ parcel, campaign: c, name: from.name, variety: from.variety, family: from.family ? { name: from.family.name } : null, active: false });
          await api.deleteCrop({ id });
        }
        say(`Moved ${from.name ?? 'the crop'} to ${parcelName} in ${c}.`);
      } catch (err) {
        say(`Not moved: ${err instanceof Error ? err.message : String(err)}`, true);
      }
      reread();
    },
  });
  const applyPattern = async (pattern: Map<string, string>) => {
    if (!grid) return 0;
    const edits = patternEdits(grid, [...ticked], pattern, (n) => familyOf(n));
    try {
      for (const e of edits) await run(e);
    } finally {
      reread();
    }
    return edits.length;
  };

  const tab = (v: View, text: string) => <button type="button" className="plan-tab" aria-pressed={view === v} onClick={() => setView(v)}>{text}</button>;
  return (
    <section className="rotation-table" role="dialog" aria-label={`Crop rotation of ${name}`} tabIndex={-1} ref={panel}>
      <div className="rotation-head">
        <h2>Crop rotation — {name}</h2>
        <span role="group" aria-label="Show" className="plan-tabs">{tab('table', 'Table')}{tab('rules', 'Rules')}{tab('summary', 'Summary')}</span>
        {view === 'table' ? (
          <label>Campaign{' '}
            <select value={campaign} onChange={(e) => setCampaign(e.target.value)}>
              <option value="">All campaigns</option>
              {columns.filter((c): c is string => c !== null).map((c) => <option key={c} value={c}>{c}{grid && isPlanned(c, grid) ? ' (plan)' : ''}</option>)}
            </select>
          </label>
        ) : null}
        <button type="button" aria-label="Close the rotation table" title="Close (Esc)" onClick={close}>✕</button>
      </div>
      <datalist id="plan-crop-names">{cropNames.map((n) => <option key={n} value={n} />)}</datalist>
      <datalist id="plan-families">{families.map((f) => <option key={f.id} value={f.name} />)}</datalist>
      {error ? <p role="alert" className="error">Could not read the rotation: {error}</p> : null}
      {!grid ? (error ? null : <p className="muted">Reading…</p>) : view === 'rules' && rules && farm ? (
        <PlanRules farm={farm} rules={rules} onSaved={setRules} />
      ) : view === 'summary' && farm ? (
        <CampaignSummary farm={farm} grid={grid} colours={colours} />
      ) : (
        <>
          <p className="muted">
            {grid.parcels.length} parcel{grid.parcels.length === 1 ? '' : 's'}; • marks the active crop; dashed cells are the plan ({planned.join(', ') || 'none'}).{' '}
            {repeats ? <span className="warning">⚠ {repeats} place{repeats === 1 ? '' : 's'} where a family follows itself.</span> : 'No family follows itself.'}
          </p>
          {grid.parcels.length === 0 ? <p className="muted">This farm has no parcels yet: draw or import some, then plan their crops here.</p> : null}
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Parcel</th>
                  {shown.map((c) => {
                    const farmLevel = c === null ? [] : placed?.campaigns.get(c) ?? [];
                    return <th key={label(c)} scope="col" className={[c !== null && isPlanned(c, grid) ? 'planned' : '', farmLevel.length ? 'violates' : ''].filter(Boolean).join(' ') || undefined}
                      title={farmLevel.map((v) => v.message).join('; ') || undefined}>{label(c)}</th>;
                  })}
                </tr>
              </thead>
              <tbody>
                {grid.parcels.map((p) => (
                  <tr key={p.parcel}>
                    <th scope="row">
                      <button type="button" className="link" title="Select it and show it on the map" onClick={() => { set({ selectedId: p.parcel }); close(); void zoomToParcel(api, p.parcel); }}>{p.name}</button>
                      <span className="muted"> {hectares(p.hectares)}</span>
                      {planned.length ? <input type="checkbox" className="plan-tick" aria-label={`Tick ${p.name} for the pattern`} checked={ticked.has(p.parcel)}
                        onChange={(e) => { const next = new Set(ticked); if (e.target.checked) next.add(p.parcel); else next.delete(p.parcel); setTicked(next); }} /> : null}
                    </th>
                    {shown.map((c) => {
                      const crops = cellCrops(grid, p.parcel, c);
                      const violations = placed?.cells.get(cellKey(p.parcel, c)) ?? [];
                      return c !== null && isPlanned(c, grid)
                        ? <PlannedCell key={label(c)} parcelName={p.name} campaign={c} crops={crops} violations={violations} colours={colours} actions={actionsFor(p.parcel, p.name, c)} />
                        : <Cell key={label(c)} crops={crops} repeats={crops.some((x) => x.warnings.length > 0)} violations={violations} colours={colours} />;
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {planned.length && grid.parcels.length ? <PatternForm key={planned.join('|')} grid={grid} campaigns={planned} selected={[...ticked]} apply={applyPattern} /> : null}
          {placed ? <Violations list={placed.all} names={parcelNames} /> : null}
          {legend.size ? (
            <ul className="family-key" aria-label="Families">
              {[...legend].sort(([a], [b]) => a.localeCompare(b)).map(([f, colour]) => <li key={f}><span className="swatch" style={{ background: colour }} />{f}</li>)}
            </ul>
          ) : null}
        </>
      )}
    </section>
  );
}
