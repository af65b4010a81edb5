// The legend's plants entry: a toggle (T) for the plants layer, and what it shows (how many, cut, or "zoom in").
import { useEffect } from 'react';
import { useBrowse } from '../browse-store.ts';
import { isShortcut, keyHint, useKeyName } from '../../keymap.ts';

const toggle = () => useBrowse.setState((s) => ({ showPlants: !s.showPlants }));

export function PlantsToggle() {
  const show = useBrowse((s) => s.showPlants);
  const plants = useBrowse((s) => s.plants);
  const key = useKeyName('plants');
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isShortcut(e, 'plants')) { e.preventDefault(); toggle(); }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  const status = !show || !plants ? null
    : plants.tooFar ? 'zoom in to see them'
      : `${plants.count.toLocaleString('en-US')} shown${plants.truncated ? ' (zoom in to see all)' : ''}`;
  return (
    <div className="plants-toggle">
      <label title={`Show plants${keyHint(key)}`}>
        <input type="checkbox" checked={show} onChange={toggle} aria-keyshortcuts={key ?? undefined} /> <span className="swatch plant" /> Plants
      </label>
      {/* A status, not a live one: it changes at every move of the map and would interrupt what is being read. */}
      {status ? <span className="plants-shown" role="status" aria-live="off" aria-label="Plants shown"> — {status}</span> : null}
    </div>
  );
}
