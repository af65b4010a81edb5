// A sync's progress, in the status line: in the header it pushed the toolbar onto a second row for the length of
// every sync, which moved the map under the pointer (a vertex clicked then landed ~20 px off). The status line has
// a fixed height, so the bar comes and goes without moving anything.
import { useApp } from '../../store.ts';
import { syncBar } from './status-words.ts';

export function SyncProgress() {
  const syncing = useApp((s) => s.syncing);
  const bar = syncBar(useApp((s) => s.sync), syncing);
  if (!bar) return null;
  return (
    <span className="progress">
      <progress aria-label="Sync progress" max={1} value={bar.share ?? undefined} />
      <span>{bar.text}</span>
    </span>
  );
}
