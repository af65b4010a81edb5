// What the host and its import thread say to each other (backend/import-worker.ts), and the import's outcome in the
// API's terms, the same whether it ran on that thread (the host) or in process (the CLI). The thread also reads and
// checks a file for the app's preview (db/import/preview.ts), writing nothing.
import type { ChangeEvent } from '../core/api-parcels.ts';
import type { FileCrs, ImportReport } from '../db/import/index.ts';
import type { FilePreview, PreviewOptions } from '../db/import/preview.ts';
import { ImportError } from '../db/import/errors.ts';

export interface ImportJob {
  home: string;
  file: string;
  account: string;
  farm: string;
  /** That very farm (db/import ImportOptions.farmId), for the app's preview: its name is `farm`. */
  farmId?: string;
  skipInvalid: boolean;
  /** Leave out parcels the account has already (db/import ImportOptions.skipDuplicates). */
  skipDuplicates?: boolean;
  /** One Int32: 1 asks the import to stop (read between chunks). */
  stop: SharedArrayBuffer;
  /** Where NTv2 grid files are looked for (backend/grids.ts gridDirs). */
  gridDirs: string[];
}

/**
 * A preview on the thread: the file, and the account's limit and the answer's caps; with `home` and `account`, the
 * mirror is opened (read only, as the import's thread does) to mark the features the account has already.
 */
export interface PreviewJob {
  preview: true;
  file: string;
  opts: Omit<PreviewOptions, 'onProgress' | 'sameAs'>;
  home?: string;
  account?: string;
}

/** Problems listed in an answer; past this many they are counted (a whole file of bad features is one cause). */
export const MAX_PROBLEMS = 1000;

export interface ImportResult {
  farm: string; farmName: string; imported: number; parts: number; skipped: number; duplicates: number;
  problems: { feature: number; message: string }[]; problemCount: number; notes: string[]; crs: FileCrs; events: ChangeEvent[];
}
export interface ImportFailure {
  code: string; message: string; problems: { feature: number; message: string }[]; problemCount: number; counts: { features: number; valid: number; invalid: number } | null;
  /** With grid_missing: the grid files needed (the app offers to take them: importGrid). */
  grids?: string[];
}

export type ImportMessage =
  | { t: 'progress'; done: number; total: number }
  | { t: 'done'; result: ImportResult }
  | { t: 'previewed'; preview: FilePreview }
  | { t: 'failed'; failure: ImportFailure };

const problemsOf = (list: readonly { index: number; message: string }[]) => list.slice(0, MAX_PROBLEMS).map((p) => ({ feature: p.index, message: p.message }));

export const importResult = (r: ImportReport, events: ChangeEvent[]): ImportResult => ({
  farm: r.farm.local_id, farmName: r.farm.name, imported: r.imported, parts: r.parts, skipped: new Set(r.skipped.map((p) => p.index)).size, duplicates: r.duplicates,
  problems: problemsOf(r.skipped), problemCount: r.skipped.length, notes: r.notes, crs: r.crs, events,
});

export const importFailure = (err: unknown): ImportFailure => (err instanceof ImportError
  ? { code: err.code, message: err.message, problems: problemsOf(err.problems), problemCount: err.problems.length, counts: err.counts ?? null, ...(err.grids.length ? { grids: [...err.grids] } : {}) }
  : { code: 'internal', message: err instanceof Error ? err.message : String(err), problems: [], problemCount: 0, counts: null });
