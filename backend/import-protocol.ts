// What the host and its import thread say to each other (backend/import-worker.ts).
import type { ChangeEvent } from '../core/api.ts';
export interface ImportJob {
  home: string;
  file: string;
  account: string;
  farm: string;
  skipInvalid: boolean;
  /** One Int32: 1 asks the import to stop (read between chunks). */
  stop: SharedArrayBuffer;
}

export type ImportMessage =
  | { t: 'progress'; done: number; total: number }
  | { t: 'done'; farm: string; imported: number; notes: string[]; skipped: { feature: number; message: string }[]; events: ChangeEvent[] }
  | { t: 'failed'; code: string; message: string; problems: { feature: number; message: string }[] };
