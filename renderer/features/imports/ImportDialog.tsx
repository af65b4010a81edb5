// The import preview, over the map's right side (the map beside it shows where the file lies and, in their own
// style, the features that cannot be imported): every feature of the file with its number, name, type, hectares
// and its problems in words (the backend's importPreview, checked with the service's rules and the account's
// limit), the counts, the farm to import into (one of the account's, or a new one), Import with its progress, and
// Cancel. Not modal, so the map stays usable beside it; it takes the focus when it opens, Esc cancels. In a small
// window (200 % zoom) it takes the whole window, so it folds to its title and summary at the window's foot to show
// the map — by its Map button, or by a row's "Show on map" — and unfolds as it was.
import { useEffect, useState, type FormEvent } from 'react';
import type { ImportPreview, ImportPreviewFeature } from '../../../core/api-imports.ts';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { SMALL_WINDOW, useSmallWindow } from '../small-window/small-window.ts';
import { farmNameProblem } from '../farms/farm-name.ts';
import { cancelImport, importValid, provideGrid } from './import-actions.ts';
import { focusFeature, importOpen, setImports, useImports } from './import-store.ts';
import { farmNameOf, featuresToImport, geometryWords, previewSummary, sameAsWords } from './import-words.ts';
import { crsWords } from '../../../core/geo/crs-words.ts';
import './imports.css';

const NEW_FARM = '';
const ha = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** One feature on the map; in a small window the dialog folds to show it, the focus on its way back to the list. */
function showOnMap(index: number): void {
  if (window.matchMedia(SMALL_WINDOW).matches) setImports({ folded: true });
  focusFeature(index);
  if (!useImports.getState().folded) return;
  document.querySelector<HTMLElement>('.import-fold')?.focus();
}

function FeatureRow({ f, skipDuplicates }: { f: ImportPreviewFeature; skipDuplicates: boolean }) {
  const bad = f.problems.length > 0;
  const there = sameAsWords(f);
  return (
    <tr className={bad ? 'invalid' : there ? 'duplicate' : undefined}>
      <td className="num">{f.index + 1}</td>
      <td>{f.name ?? <span className="muted" title="A feature without a name is named after the farm and its number">(no name)</span>}</td>
      <td>{geometryWords(f.geometryType, f.parcels)}</td>
      <td className="num">{f.hectares === null ? '—' : ha(f.hectares)}</td>
      <td>
        {bad ? (
          <>
            <ul className="problems">{f.problems.map((p, i) => <li key={i}>{p.message}</li>)}</ul>
            {f.geometry ? <button type="button" className="link" aria-label={`Show feature ${f.index + 1} on the map`} onClick={() => showOnMap(f.index)}>Show on map</button> : null}
          </>
        ) : there ? <span className="same">{there}{skipDuplicates ? ': skipped' : ': imported again'}</span> : <span className="ok">✓ Can be imported</span>}
      </td>
    </tr>
  );
}

function Preview({ p }: { p: ImportPreview }) {
  const api = useApi();
  const farms = useApp((s) => s.farms);
  const importing = useImports((s) => s.importing);
  const showInvalid = useImports((s) => s.showInvalid);
  // The backend's refusal of the import (a farm named so meanwhile, the service's limit…), on the line kept for it.
  const failed = useImports((s) => s.error?.text ?? null);
  const edited = () => { setProblem(null); if (failed) setImports({ error: null }); };
  const [onlyProblems, setOnlyProblems] = useState(false);
  // Features the account has already are left out unless the user asks for them again.
  const [skipDuplicates, setSkipDuplicates] = useState(true);
  const toImport = featuresToImport(p, skipDuplicates);
  const [farm, setFarm] = useState(NEW_FARM);
  const [name, setName] = useState(() => farmNameOf(p.fileName));
  const [problem, setProblem] = useState<string | null>(null);
  const rows = onlyProblems ? p.features.filter((f) => f.problems.length > 0) : p.features;
  // Said only when something would go into it: with nothing new to import, no farm is made.
  const taken = toImport > 0 && farm === NEW_FARM && farms.some((f) => f.name === name.trim());

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (importing || toImport === 0) return;
    if (farm !== NEW_FARM) return void importValid(api, { id: farm }, skipDuplicates);
    const checked = farmNameProblem(name);
    if (!checked.name) return setProblem(checked.problem);
    if (taken) return setProblem(`A farm named ${checked.name} exists: choose it in the list, or another name.`);
    void importValid(api, { name: checked.name }, skipDuplicates);
  };

  return (
    <>
      <p id="import-summary" className="import-summary">
        {previewSummary(p)} <span className="muted">Checked with the service's rules and the account's limit of {p.parcelLimit.toLocaleString('en-US')} ha.</span>
      </p>
      {/* The file's coordinate system: what the hectares and the shapes on the map were reprojected from. */}
      <p id="import-crs" className={`import-crs${p.crs.reprojected ? ' reprojected' : ''}`}>Coordinate system: {crsWords(p.crs)}</p>
      <div id="import-body" className="import-body">
      {p.notes.map((n) => <p key={n} className="warning">{n}</p>)}
      {p.duplicates > 0 ? (
        <p className="same-summary" id="import-duplicates">
          {p.duplicateFeatures.toLocaleString('en-US')} of them {p.duplicateFeatures === 1 ? 'is' : 'are'} in this account already (the same shape as a parcel here).{' '}
          <label><input type="checkbox" checked={skipDuplicates} onChange={(e) => { setSkipDuplicates(e.target.checked); edited(); }} /> Skip the parcels already here</label>
        </p>
      ) : null}
      <div className="import-options">
        <label><input type="checkbox" checked={onlyProblems} onChange={(e) => setOnlyProblems(e.target.checked)} /> Only features with problems</label>
        <label><input type="checkbox" checked={showInvalid} disabled={p.invalid === 0} onChange={(e) => setImports({ showInvalid: e.target.checked })} /> Show the ones that cannot be imported on the map</label>
      </div>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Features, scrollable">
        <table aria-label={`Features of ${p.fileName}`}>
          <thead>
            <tr><th scope="col" className="num">#</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col" className="num">Hectares</th><th scope="col">Problems</th></tr>
          </thead>
          <tbody>{rows.map((f) => <FeatureRow key={f.index} f={f} skipDuplicates={skipDuplicates} />)}</tbody>
        </table>
      </div>
      {p.truncated ? <p className="muted">Listed: {p.features.length.toLocaleString('en-US')} of {p.total.toLocaleString('en-US')} features, every one with a problem first.</p> : null}
      <form className="import-farm" aria-label="Import into a farm" onSubmit={submit}>
        <div className="import-farm-fields">
          <label>Farm{' '}
            <select value={farm} disabled={importing !== null} onChange={(e) => { setFarm(e.target.value); edited(); }}>
              <option value={NEW_FARM}>New farm</option>
              {farms.map((f) => <option key={f.id} value={f.id}>{f.name} ({f.parcels} parcel{f.parcels === 1 ? '' : 's'})</option>)}
            </select>
          </label>
          <label>New farm name{' '}
            <input value={name} maxLength={255} disabled={farm !== NEW_FARM || importing !== null} aria-invalid={problem !== null || taken}
              aria-describedby="import-farm-problem" onChange={(e) => { setName(e.target.value); edited(); }} />
          </label>
        </div>
        {/* Room kept for a line of words and the bar, so nothing below moves when they come. */}
        <p id="import-farm-problem" className="error import-line" role="alert">{problem ?? failed ?? (taken ? `A farm named ${name.trim()} exists: choose it in the list, or another name.` : '')}</p>
        <div className="import-progress" aria-hidden={importing === null}>
          <progress aria-label="Import progress" max={importing?.total || 1} value={importing?.done ?? 0} />
          <span>{importing ? `Importing… ${importing.done.toLocaleString('en-US')} of ${importing.total.toLocaleString('en-US')} checked` : ''}</span>
        </div>
        <div className="buttons">
          <button type="submit" disabled={importing !== null || toImport === 0}>
            {p.valid === 0 ? 'Nothing to import' : toImport === 0 ? 'Nothing new to import'
              : `Import ${toImport.toLocaleString('en-US')} ${toImport < p.valid ? 'new' : 'valid'} feature${toImport === 1 ? '' : 's'}`}
          </button>
          <button type="button" onClick={() => cancelImport(api)}>{importing ? 'Stop import' : 'Cancel'}</button>
        </div>
      </form>
      </div>
    </>
  );
}

/**
 * A file refused for want of the NTv2 grid its datum shift needs: the user may have it (national mapping agencies
 * publish them): chosen here, it is kept for every file that needs it, and the file is previewed again.
 */
function GridOffer({ grids }: { grids: string[] }) {
  const api = useApi();
  return (
    <div className="grid-offer">
      {grids.map((g) => (
        <p key={g}>
          If you have the grid file <strong>{g}</strong>, Furrow can use it (and keeps it for the next files that need it):{' '}
          <label className="file-button">Choose {g}…
            <input type="file" accept=".gsb" aria-label={`Grid file ${g}`} onChange={(e) => { const f = e.target.files?.[0]; e.target.value = ''; if (f) void provideGrid(api, f, g); }} />
          </label>
        </p>
      ))}
    </div>
  );
}

export function ImportDialog() {
  const api = useApi();
  const open = useImports(importOpen);
  const reading = useImports((s) => s.reading);
  const preview = useImports((s) => s.preview);
  const error = useImports((s) => s.error);
  const panel = useDialogFocus(() => cancelImport(api), { modal: false, opener: '.import-button', open });
  const account = useApp((s) => s.account?.id);
  // Another account shown: the preview was checked against the other's limit, for the other's farms.
  useEffect(() => { if (preview && preview.account !== account && !useImports.getState().importing) cancelImport(api); }, [api, account, preview]);
  const fileName = preview?.fileName ?? reading?.fileName ?? error?.fileName ?? '';
  const small = useSmallWindow();
  const folded = useImports((s) => s.folded) && small && preview !== null;
  // A new file's preview gets the focus again (a screen reader reads the new table's summary).
  useEffect(() => { if (open) panel.current?.focus(); }, [open, preview?.preview, panel]);
  if (!open) return null;
  return (
    // The window's single-key shortcuts wait while the keys are the dialog's (its fields, its buttons); Esc is still its Cancel.
    <section className={folded ? 'import-dialog folded' : 'import-dialog'} role="dialog" aria-labelledby="import-title" aria-describedby={preview ? 'import-summary import-crs' : undefined} tabIndex={-1} ref={panel}
      onKeyDown={(e) => { if (e.key !== 'Escape') e.nativeEvent.stopPropagation(); }}>
      <div className="import-head">
        <h2 id="import-title">Import {fileName}</h2>
        {small && preview ? (
          <button type="button" className="import-fold" aria-expanded={!folded} aria-controls="import-body"
            title={folded ? 'Back to the list of features' : 'Fold the preview to see the map'} onClick={() => setImports({ folded: !folded })}>
            {folded ? 'List' : 'Map'}
          </button>
        ) : null}
        <button type="button" aria-label="Close the import preview" title="Close (Esc)" onClick={() => cancelImport(api)}>✕</button>
      </div>
      {reading ? (
        <div className="import-reading">
          <p>Reading and checking every feature of {reading.fileName}…</p>
          <progress aria-label="Checking features" max={reading.progress?.total || 1} value={reading.progress?.done ?? 0} />
        </div>
      ) : null}
      {error && !preview ? <p className="error import-error" role="alert">{error.text}</p> : null}
      {error?.grids && !preview && !reading ? <GridOffer grids={error.grids} /> : null}
      {preview && !reading ? <Preview key={preview.preview} p={preview} /> : null}
      {!preview ? <div className="buttons"><button type="button" onClick={() => cancelImport(api)}>{reading ? 'Cancel' : 'Close'}</button></div> : null}
    </section>
  );
}
