// A sync's progress, in the status line: in the header it pushed the toolbar onto a second row for the length of
// every sync, which moved the map under the pointer (a vertex clicked then landed ~20 px off). The status line has
// a fixed height, so the bar comes and goes without moving anything.
import { useApp } from '../../store.ts';

export function SyncProgress() {
  const syncing = useApp((s) => s.syncing);
  const progress = useApp((s) => s.sync);
  if (!syncing && !progress) return null;
  return (
    <span className="progress">
      <progress aria-label="Sync progress" max={progress?.total || 1} value={progress?.total ? progress.done : undefined} />
      <span>{progress ? `${progress.phase} ${progress.done}/${progress.total}` : 'starting'}</span>
    </span>
  );
}
