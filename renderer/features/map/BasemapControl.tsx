// The map's basemap switcher: "No basemap" (the default, the graticule alone) or an XYZ tile address the user types,
// checked with core/basemap.ts's rule before it is used. B opens and closes it; Esc closes it.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { basemapUrlProblem } from '../../../core/basemap.ts';
import { chooseBasemap, useBasemap } from './basemap-store.ts';
import { behindPanel, isShortcut, keyHint, useKeyName } from '../../keymap.ts';

export function BasemapControl() {
  const { url, unavailable } = useBasemap();
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState<'none' | 'xyz'>(url ? 'xyz' : 'none');
  const [text, setText] = useState(url ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const panel = useId();
  const key = useKeyName('basemap');
  // The choice can change from elsewhere (the last start's, put back: features/view/): the form follows it.
  useEffect(() => { setChoice(url ? 'xyz' : 'none'); setText(url ?? ''); }, [url]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && open && !behindPanel()) { setOpen(false); return; }
      if (isShortcut(e, 'basemap')) { e.preventDefault(); setOpen((o) => !o); }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (choice === 'none') {
      chooseBasemap(null);
      setProblem(null);
      setOpen(false);
      return;
    }
    const why = basemapUrlProblem(text);
    setProblem(why);
    if (!why) { chooseBasemap(text.trim()); setOpen(false); }
  };

  return (
    <div className="basemap-control">
      <button type="button" aria-expanded={open} aria-controls={panel} aria-keyshortcuts={key ?? undefined} title={`Basemap${keyHint(key)}`} onClick={() => setOpen(!open)}>Basemap</button>
      {url && unavailable && <span className="basemap-hint" role="status" aria-label="Basemap status">Basemap unavailable: the map works without it</span>}
      {open && (
        <form id={panel} aria-label="Basemap" onSubmit={apply}>
          <label><input type="radio" name="basemap" checked={choice === 'none'} onChange={() => setChoice('none')} /> No basemap</label>
          <label><input type="radio" name="basemap" checked={choice === 'xyz'} onChange={() => setChoice('xyz')} /> XYZ tiles</label>
          <label>Tile address
            <input type="text" value={text} disabled={choice !== 'xyz'} aria-invalid={problem !== null} aria-describedby={problem ? `${panel}-problem` : undefined} placeholder="https://tile.example.org/{z}/{x}/{y}.png" spellCheck={false}
              onChange={(e) => setText(e.target.value)} />
          </label>
          {problem && <p id={`${panel}-problem`} className="error" role="alert">{problem}</p>}
          <div className="buttons"><button type="submit">Apply</button></div>
        </form>
      )}
    </div>
  );
}
