/** What the CLI and the app render while a sync runs. */
export interface ProgressEvent {
  account: string;
  /** 'reconcile': settling creates whose outcome is unknown; 'waiting': a pause before a retry or a check, `message` says why. */
  phase: 'reconcile' | 'farms' | 'parcels' | 'updates' | 'crops' | 'deletes' | 'pull' | 'waiting' | 'done';
  /** Items handled so far in this phase and how many there are (total 0 when unknown). */
  done: number;
  total: number;
  /** Request bytes sent so far for this account. */
  bytes: number;
  /** Answer bytes received so far for this account, as they came over the wire (compressed). */
  bytesReceived?: number;
  message?: string;
  /**
   * Set while the service accepts connections and does not answer: the run's last request got no answer within the
   * client's timeout (why, in words). Absent once an answer came, and while it answers.
   */
  notAnswering?: string;
}
