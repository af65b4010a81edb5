/** What the CLI and the app render while a sync runs. */
export interface ProgressEvent {
  account: string;
  phase: 'reconcile' | 'farms' | 'parcels' | 'updates' | 'crops' | 'deletes' | 'pull' | 'done';
  /** Items handled so far in this phase and how many there are (total 0 when unknown). */
  done: number;
  total: number;
  /** Request bytes sent so far for this account. */
  bytes: number;
  message?: string;
}
