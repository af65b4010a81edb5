// What the import preview does (features/imports/): a file (dropped, or picked with Import) read and sent to the
// backend's importPreview, then the valid features imported with importPreviewed; the outcome lands in the stores as
// plain data. The running call's AbortController stays here, out of the store.
import { RpcError, RpcCode } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import type { AppApi } from '../../backend.ts';
import { refreshAccount } from '../../account.ts';
import { say, set, useApp } from '../../store.ts';
import { zoomToFarm } from '../zoom/zoom.ts';
import { focusSoon } from '../focus/focus-soon.ts';
import { setImports, useImports } from './import-store.ts';
import { fileProblem, importedMessage } from './import-words.ts';
import { IMPORT_GRID_MAX_BYTES } from '../../../core/api-imports.ts';

let running: AbortController | null = null;
/** The file last sent for a preview: previewed again once the grid file it needs is given (provideGrid). */
let lastFile: File | null = null;

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The file's bytes as base64, read by the browser (a data: URL's payload): no copy through a JavaScript string of bytes. */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('the browser could not read it'));
    reader.readAsDataURL(file);
  });
}

/** Reads `file` and asks the backend for its preview; the dialog shows the progress, then the preview or why not. */
export async function previewFile(api: AppApi, file: File): Promise<void> {
  const account = useApp.getState().account?.id;
  if (!account) {
    say('Connect an account first: an import goes into one of its farms.', true);
    return;
  }
  if (useImports.getState().importing) {
    say(`Not previewed: ${file.name} waits until the import running ends.`, true);
    return;
  }
  const problem = fileProblem(file.name, file.size);
  if (problem) {
    setImports({ reading: null, preview: null, error: { fileName: file.name, text: problem } });
    return;
  }
  running?.abort();
  const mine = new AbortController();
  running = mine;
  lastFile = file;
  setImports({ reading: { fileName: file.name, progress: null }, preview: null, error: null, focus: null, folded: false });
  try {
    const data = await base64Of(file);
    const preview = await api.importPreview({ account, fileName: file.name, data }, {
      signal: mine.signal, onProgress: (progress) => { if (running === mine) setImports({ reading: { fileName: file.name, progress } }); },
    });
    if (running !== mine) return;
    setImports({ reading: null, preview, showInvalid: true });
  } catch (err) {
    if (running !== mine || (err instanceof RpcError && err.code === RpcCode.cancelled)) return;
    setImports({ reading: null, error: { fileName: file.name, text: why(err), ...gridsOf(err) } });
  } finally {
    if (running === mine) running = null;
  }
}

/** The grid files a refusal names (grid_missing), for the dialog to ask for. */
function gridsOf(err: unknown): { grids?: string[] } {
  const d = err instanceof RpcError ? err.details as { code?: unknown; grids?: unknown } | undefined : undefined;
  const grids = d?.code === 'grid_missing' && Array.isArray(d.grids) ? d.grids.filter((g): g is string => typeof g === 'string') : [];
  return grids.length ? { grids } : {};
}

/**
 * The grid file `expected` (a file refused with grid_missing names it), chosen by the user: kept by the backend in
 * FURROW_HOME/grids (importGrid), then the file previewed again. A file of another name is refused here: the name is
 * how a CRS's definition finds its grid, and another grid would shift the parcels by its own numbers.
 */
export async function provideGrid(api: AppApi, grid: File, expected: string): Promise<void> {
  const file = lastFile;
  const fileName = useImports.getState().error?.fileName ?? file?.name ?? '';
  const fail = (text: string) => setImports({ error: { ...(useImports.getState().error ?? { fileName }), text } });
  if (grid.name.toLowerCase() !== expected.toLowerCase()) return fail(`${grid.name} is not ${expected}: choose the grid file of that name.`);
  if (grid.size > IMPORT_GRID_MAX_BYTES) return fail(`${grid.name} is larger than a grid file the app keeps.`);
  try {
    await api.importGrid({ name: expected, data: await base64Of(grid) });
  } catch (err) {
    return fail(`${expected} was not kept: ${why(err)}`);
  }
  say(`${expected} is kept in your Furrow folder: files that need it are reprojected with it from now on.`);
  if (file) await previewFile(api, file);
}

/** Imports the preview's valid features into a farm (by id) or a new farm (by name); closes the dialog when done. */
export async function importValid(api: AppApi, farm: { id: string } | { name: string }, skipDuplicates = true): Promise<void> {
  const { preview, importing } = useImports.getState();
  if (!preview || importing) return;
  const mine = new AbortController();
  running = mine;
  setImports({ importing: { done: 0, total: preview.total }, error: null });
  try {
    const r = await api.importPreviewed({ preview: preview.preview, farm, skipDuplicates }, { signal: mine.signal, onProgress: (p) => setImports({ importing: p }) });
    setImports({ preview: null, importing: null, focus: null });
    // The parcel selected before is no longer what the user looks at: the side panel goes back to the farms, where
    // the imported one is about to be focused (a parcel being modified is the user's unsaved work: it stays).
    if (useApp.getState().mode !== 'modify') set({ selectedId: null });
    say(importedMessage(r, preview.fileName));
    await refreshAccount(api).catch(() => {});
    zoomToFarm(r.farm);
    // The dialog gave the focus back to Import: it goes on to the farm the parcels went into, in the farms list.
    focusSoon(`.farm[data-farm="${r.farm}"]`, true);
  } catch (err) {
    if (err instanceof RpcError && err.code === RpcCode.cancelled) {
      setImports({ importing: null });
      say(`Import of ${preview.fileName} stopped: nothing was imported.`);
      return;
    }
    // A preview no longer kept cannot be imported: the dialog says to drop the file again, and shows no table.
    const gone = err instanceof RpcError && err.code === ApiErrorCode.previewGone;
    setImports({ importing: null, ...(gone ? { preview: null } : {}), error: { fileName: preview.fileName, text: `Not imported: ${why(err)}` } });
  } finally {
    if (running === mine) running = null;
  }
}

/** Cancel: stops what runs (an import rolls back whole), else closes the dialog and lets the backend drop the file. */
export function cancelImport(api: AppApi): void {
  const { preview, importing } = useImports.getState();
  if (running) {
    running.abort();
    running = null;
    if (importing) return; // the import's answer says it stopped; the preview stays to try again
  }
  if (preview) void api.importPreviewDiscard({ preview: preview.preview }).catch(() => {});
  lastFile = null;
  setImports({ reading: null, preview: null, importing: null, error: null, focus: null });
}
