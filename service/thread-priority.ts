import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the CPU priority of the calling thread (Linux: a thread has its own nice value, set through its id).
 * The validation workers run at nice 10: with one worker per core, one organization's heavy batch would
 * otherwise take the cores from the thread that answers every organization's requests. Elsewhere, a no-op.
 */
export function lowerThisThreadPriority(nice = 10): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid)) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
