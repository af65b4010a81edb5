// The app's own syncs: on a timer (every minute, backing off while the service cannot be reached: auto-sync.ts) and
// at once when the operating system says the network is back. Any sync's end, the user's too, restarts the clock.
import { useEffect } from 'react';
import type { AppApi } from '../../backend.ts';
import { syncNow } from './sync-now.ts';
import { useApp } from '../../store.ts';
import { nextAutoSyncMs } from './auto-sync.ts';

export function useAutoSync(api: AppApi): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let offlineRuns = 0;
    const schedule = () => {
      clearTimeout(timer);
      // A service not answering is tried again as an unreachable one is, backing off.
      const { connection } = useApp.getState();
      offlineRuns = connection === 'offline' || connection === 'silent' ? offlineRuns + 1 : 0;
      timer = setTimeout(run, nextAutoSyncMs(offlineRuns));
    };
    const run = () => {
      const { account, syncing } = useApp.getState();
      // Nothing to sync, or a sync already on: its end schedules the next.
      if (!account) schedule();
      else if (!syncing) void syncNow(api, { auto: true });
    };
    const ended = useApp.subscribe((s, prev) => { if (prev.syncing && !s.syncing) schedule(); });
    const online = () => run();
    window.addEventListener('online', online);
    schedule();
    return () => {
      clearTimeout(timer);
      ended();
      window.removeEventListener('online', online);
    };
  }, [api]);
}
