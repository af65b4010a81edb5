// The import preview's state as plain data (features/imports/): a file dragged over the window, the one being read
// and checked, its preview (the backend's answer, plain JSON), the import running, and why the last file could not
// be previewed. The calls themselves are import-actions.ts's; the map's layer of the invalid shapes is useImportLayer's.
import { create } from 'zustand';
import type { ImportPreview } from '../../../core/api-imports.ts';

export interface Progress { done: number; total: number }

export interface ImportState {
  /** A file is being dragged over the window: the drop zone shows. */
  dragging: boolean;
  /** The file being sent and checked, and the features checked so far (null until the backend counts them). */
  reading: { fileName: string; progress: Progress | null } | null;
  preview: ImportPreview | null;
  /** The preview's valid features are being imported, with the features done. */
  importing: Progress | null;
  /**
   * Why the last file could not be previewed or imported (the dialog shows it); with `grids`, the NTv2 grid files its
   * datum shift needs, which the dialog offers to take from the user (import-actions.ts provideGrid).
   */
  error: { fileName: string; text: string; grids?: string[] } | null;
  /** The features that cannot be imported drawn on the map. */
  showInvalid: boolean;
  /** Asks the map to show one feature of the preview (its index; nonce: the same one asked again). */
  focus: { index: number; nonce: number } | null;
  /** In a small window, the dialog folded to its title and summary at the window's foot, so the map shows. */
  folded: boolean;
}

export const useImports = create<ImportState>(() => ({ dragging: false, reading: null, preview: null, importing: null, error: null, showInvalid: true, focus: null, folded: false }));
export const setImports = useImports.setState;

/** Whether the import dialog is open: a file is read, previewed, or could not be. */
export const importOpen = (s: ImportState): boolean => s.reading !== null || s.preview !== null || s.error !== null;

export const focusFeature = (index: number) => setImports((s) => ({ focus: { index, nonce: (s.focus?.nonce ?? 0) + 1 } }));
