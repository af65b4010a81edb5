// Search over parcel names and metadata values (the backend's `search`, full text in the mirror), as you type:
// the results list says each parcel's name, farm, hectares and sync state; Enter or a click selects it, opens its
// panel and fits the map to it. Ctrl+F or "/" focuses the box; ↑/↓ move through the results, Esc closes them.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ParcelFeature } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { set, useApp } from '../../store.ts';
import { hectares, stateColor, stateLabel } from '../../states.ts';
import { fitMap } from '../browse-store.ts';
import { boxOf } from '../zoom/bbox.ts';
import { matchedMetadata } from './matched.ts';
import { behindPanel, isShortcut, useKeyName } from '../../keymap.ts';

/** Typing pauses this long before the mirror is asked: one query per word rather than per key. */
const DEBOUNCE_MS = 150;
const LIMIT = 20;

export function SearchBox() {
  const api = useApi();
  const account = useApp((s) => s.account?.id);
  const farms = useApp((s) => s.farms);
  const version = useApp((s) => s.version);
  const [text, setText] = useState('');
  const [results, setResults] = useState<ParcelFeature[] | null>(null);
  const [active, setActive] = useState(0);
  const [open, setOpen] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const key = useKeyName('search');

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f' && !behindPanel()) || isShortcut(e, 'search')) {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    if (!account || !text.trim()) { setResults(null); setFailed(null); return; }
    let live = true;
    const timer = setTimeout(() => {
      api.search({ account, text, limit: LIMIT }).then(
        (r) => { if (live) { setResults(r); setActive(0); setFailed(null); } },
        (err: unknown) => { if (live) { setResults(null); setFailed(err instanceof Error ? err.message : String(err)); } },
      );
    }, DEBOUNCE_MS);
    return () => { live = false; clearTimeout(timer); };
  }, [api, account, text, version]);

  const choose = (f: ParcelFeature) => {
    set({ selectedId: f.id });
    const box = boxOf([f.geometry]);
    if (box) fitMap(box);
    setOpen(false);
  };

  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    const n = results?.length ?? 0;
    if (e.key === 'ArrowDown' && n) { e.preventDefault(); setOpen(true); setActive((a) => (a + 1) % n); }
    else if (e.key === 'ArrowUp' && n) { e.preventDefault(); setOpen(true); setActive((a) => (a - 1 + n) % n); }
    else if (e.key === 'Enter' && results?.[active]) { e.preventDefault(); choose(results[active]); }
    else if (e.key === 'Escape') { e.preventDefault(); if (open && text) setOpen(false); else { setText(''); input.current?.blur(); } }
  };

  const farmName = (id: string) => farms.find((f) => f.id === id)?.name ?? '—';
  const showList = open && text.trim() !== '' && (results !== null || failed !== null);
  return (
    <div className="search" role="search">
      <input ref={input} type="search" className="search-input" placeholder={`Search (Ctrl+F${key ? ` or ${key}` : ''})`} aria-label="Search parcels"
        aria-keyshortcuts={key ? `Control+F ${key}` : 'Control+F'} title={`Search parcel names and metadata values (Ctrl+F${key ? ` or ${key}` : ''})`} disabled={!account} value={text} autoComplete="off"
        role="combobox" aria-expanded={showList} aria-controls="search-results" aria-autocomplete="list"
        aria-activedescendant={showList && results?.[active] ? `search-result-${active}` : undefined}
        onChange={(e) => { setText(e.target.value); setOpen(true); }} onFocus={() => setOpen(true)} onKeyDown={onKey}
        onBlur={() => setOpen(false)} />
      {showList ? (
        <ul id="search-results" className="search-results" role="listbox" aria-label="Search results">
          {failed ? <li className="error" role="option" aria-selected={false} aria-disabled>Search failed: {failed}. Try other words.</li> : null}
          {results && results.length === 0 ? <li className="muted" role="option" aria-selected={false} aria-disabled>No parcel matches “{text.trim()}”.</li> : null}
          {results?.map((f, i) => (
            <li key={f.id} id={`search-result-${i}`} role="option" aria-selected={i === active} className={i === active ? 'active' : undefined}
              onMouseDown={(e) => e.preventDefault() /* keeps the focus in the box: its blur closes the list */} onClick={() => choose(f)} onMouseEnter={() => setActive(i)}>
              <span className="result-name">{f.properties.name}</span>
              {matchedMetadata(text, f.properties.name, f.properties.metadata) ? <span className="result-why">{matchedMetadata(text, f.properties.name, f.properties.metadata)}</span> : null}
              <span className="result-meta">
                {farmName(f.properties.farm)} · {hectares(f.properties.hectares)} · <span className="dot" style={{ background: stateColor(f.properties.state) }} />{stateLabel(f.properties.state)}
              </span>
            </li>
          ))}
          {results && results.length === LIMIT ? <li className="muted" role="option" aria-selected={false} aria-disabled>The first {LIMIT}: type more to narrow.</li> : null}
        </ul>
      ) : null}
    </div>
  );
}
