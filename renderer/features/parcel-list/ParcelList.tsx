// A farm's parcels without the map: name, hectares and sync state in words, a page at a time (a farm of thousands
// reads 50 rows, not thousands), as a listbox — arrows move, Enter or a click selects the parcel, which the map then
// shows selected and zooms to, and the side panel opens. A parcel selected on the map (or by search) is shown
// selected here, on its page, in its farm's list; without a selection the list is the chosen farm's.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ParcelPage } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { set, useApp } from '../../store.ts';
import { hectares, stateColor, stateLabel } from '../../states.ts';
import { zoomToParcel } from '../zoom/zoom.ts';
import { pageWords } from './page-words.ts';
import './parcel-list.css';

/** Rows a page: a side panel's worth, and cheap to read at any farm's size. */
export const PAGE = 50;

export function ParcelList() {
  const api = useApi();
  const farmId = useApp((s) => s.farmId);
  const selectedId = useApp((s) => s.selectedId);
  const version = useApp((s) => s.version);
  const farms = useApp((s) => s.farms);
  // null: the page holding the selected parcel (its farm's); else a farm's page the user turned to.
  const [at, setAt] = useState<{ farm: string; offset: number } | null>(null);
  const [page, setPage] = useState<ParcelPage | null>(null);
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const focusActive = useRef(false);
  // ArrowUp past a page's top lands on the previous page's last row, not its first.
  const landOnLast = useRef(false);

  // A new selection (on the map, the search, here): its page. A farm chosen in the farms list: its first page; none
  // (another account shown, without farms yet): nothing of the last account's.
  useEffect(() => setAt(null), [selectedId]);
  const chosen = useRef(farmId);
  useEffect(() => {
    if (chosen.current === farmId) return;
    chosen.current = farmId;
    setAt(farmId ? { farm: farmId, offset: 0 } : null);
  }, [farmId]);

  useEffect(() => {
    let live = true;
    const args = at ? { ...at, limit: PAGE } : selectedId ? { around: selectedId, limit: PAGE } : farmId ? { farm: farmId, offset: 0, limit: PAGE } : null;
    if (!args) { setPage(null); return; }
    api.farmParcels(args).then((p) => { if (live) setPage(p); }, () => { if (live && !at && farmId) setAt({ farm: farmId, offset: 0 }); });
    return () => { live = false; };
  }, [api, at, selectedId, farmId, version]);

  // The row with the keyboard's focus: the selected one when it is on this page, else the first.
  const rows = page?.parcels ?? [];
  const selectedRow = rows.findIndex((p) => p.id === selectedId);
  const option = (i: number) => list.current?.querySelectorAll<HTMLElement>('[role=option]')[i];
  // A page turned from the keyboard: the focus goes on with it, to its first row (or its last, going up).
  useEffect(() => {
    const i = landOnLast.current ? rows.length - 1 : selectedRow >= 0 ? selectedRow : 0;
    landOnLast.current = false;
    setActive(i);
    if (focusActive.current) option(i)?.focus();
    focusActive.current = false;
  }, [page?.farm, page?.offset, selectedRow]);
  // Another farm's list, or another page, starts at its top: the last one's scroll position meant nothing there (only a
  // new page moves it, not a selection on this one).
  useEffect(() => {
    if (list.current && selectedRow < 0) list.current.scrollTop = 0;
  }, [page?.farm, page?.offset]);
  // The selected row in sight within the list's own scroll (not the side panel's, which starts at the parcel's panel).
  useEffect(() => {
    const ul = list.current;
    const li = selectedRow >= 0 ? option(selectedRow) : undefined;
    if (!ul || !li) return;
    if (li.offsetTop < ul.scrollTop || li.offsetTop + li.offsetHeight > ul.scrollTop + ul.clientHeight) ul.scrollTop = li.offsetTop - (ul.clientHeight - li.offsetHeight) / 2;
  }, [page, selectedRow]);

  if (!page) return null;
  const farm = farms.find((f) => f.id === page.farm)?.name ?? '';
  const choose = (id: string) => {
    set({ selectedId: id });
    void zoomToParcel(api, id);
  };
  const turn = (offset: number) => {
    focusActive.current = true;
    setAt({ farm: page.farm, offset });
  };
  const move = (i: number) => {
    const to = Math.max(0, Math.min(rows.length - 1, i));
    setActive(to);
    option(to)?.focus();
  };
  const onKey = (e: KeyboardEvent, i: number, id: string) => {
    const last = page.offset + PAGE < page.total;
    if (e.key === 'ArrowDown') { e.preventDefault(); if (i === rows.length - 1 && last) turn(page.offset + PAGE); else move(i + 1); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); if (i === 0 && page.offset > 0) { landOnLast.current = true; turn(Math.max(0, page.offset - PAGE)); } else move(i - 1); }
    else if (e.key === 'Home') { e.preventDefault(); move(0); }
    else if (e.key === 'End') { e.preventDefault(); move(rows.length - 1); }
    else if (e.key === 'PageDown' && last) { e.preventDefault(); turn(page.offset + PAGE); }
    else if (e.key === 'PageUp' && page.offset > 0) { e.preventDefault(); turn(Math.max(0, page.offset - PAGE)); }
    else if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); choose(id); }
  };
  const words = pageWords(page.offset, rows.length, page.total);
  return (
    <section className="parcel-list" aria-labelledby="parcel-list-title">
      <h3 id="parcel-list-title">Parcels of {farm}</h3>
      {page.total === 0 ? <p className="muted">No parcels in this farm yet.</p> : (
        <>
          <ul ref={list} role="listbox" aria-labelledby="parcel-list-title" aria-describedby="parcel-list-page">
            {rows.map((p, i) => (
              <li key={p.id} role="option" data-parcel={p.id} aria-selected={p.id === selectedId} tabIndex={i === active ? 0 : -1}
                onClick={() => { setActive(i); choose(p.id); }} onKeyDown={(e) => onKey(e, i, p.id)}>
                <span className="parcel-name">{p.name}</span>
                <span className="parcel-ha">{hectares(p.hectares)}</span>
                <span className="parcel-state"><span className="dot" style={{ background: stateColor(p.state) }} />{stateLabel(p.state)}</span>
              </li>
            ))}
          </ul>
          {/* Pages only for a farm that needs them; one page says how many. */}
          <div className="pager">
            {page.total > PAGE ? <button type="button" disabled={page.offset === 0} onClick={() => turn(Math.max(0, page.offset - PAGE))}>Previous</button> : null}
            <span id="parcel-list-page" aria-live="polite">{words}</span>
            {page.total > PAGE ? <button type="button" disabled={page.offset + PAGE >= page.total} onClick={() => turn(page.offset + PAGE)}>Next</button> : null}
          </div>
        </>
      )}
    </section>
  );
}
