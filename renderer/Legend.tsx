// What the map's colours mean, and how much of the account the map shows.
import { useApp } from './store.ts';
import { STATES } from './states.ts';
import { PlantsToggle } from './features/plants/PlantsToggle.tsx';
import { hasFilter, useBrowse } from './features/browse-store.ts';

export function Legend() {
  const shown = useApp((s) => s.shown);
  const filtered = useBrowse((s) => hasFilter(s.filter));
  return (
    <aside className="legend" aria-label="Legend">
      <ul>
        {STATES.map((s) => (
          <li key={s.state}><span className="swatch" style={{ background: `${s.color}55`, borderColor: s.color }} />{s.label}</li>
        ))}
      </ul>
      <PlantsToggle />
      <p className="shown" role="status">
        {shown.count} parcel{shown.count === 1 ? '' : 's'} shown{shown.truncated ? ' (zoom in to see all)' : ''}{filtered ? ', filtered by metadata' : ''}
      </p>
    </aside>
  );
}
