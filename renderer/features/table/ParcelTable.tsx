// The attribute table (issue 33): every parcel of the chosen farm, or of the account, as a row — name, hectares, farm,
// sync state, active crop, one column per metadata key — sorted and filtered by any column by the host
// (core/api-table.ts), read a range at a time as it scrolls into view (useTableRows.ts, TableGrid.tsx). Selecting rows
// marks them on the map; a parcel clicked on the map is found and selected here, shift-clicked it joins the selection.
// The selection can be bulk edited as one undoable edit (BulkEditForm.tsx); what the table shows exports as CSV or
// GeoJSON (the export feature's buttons, given the table's query). Docked over the map's foot, not modal: the map
// stays usable beside it. X (keymap.ts) opens and closes it, Esc in it closes it.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { TableQuery } from '../../../core/api.ts';
import { BASE_COLUMNS, MAX_TABLE_IDS } from '../../../core/table/columns.ts';
import { useApi } from '../../context.ts';
import { say, set, useApp } from '../../store.ts';
import { zoomToParcel } from '../zoom/zoom.ts';
import { ExportButtons } from '../export/ExportButtons.tsx';
import { TableGrid } from './TableGrid.tsx';
import { BulkEditForm } from './BulkEditForm.tsx';
import { useTableRows } from './useTableRows.ts';
import { filtersOf } from './filter-text.ts';
import { selectRows, setTable, toggleTable, useTable } from './table-store.ts';
import { keyHint, useKeyName } from '../../keymap.ts';
import './table.css';

/** Typing in a filter box asks the host once the typing pauses this long. */
const FILTER_PAUSE_MS = 250;
/** The metadata keys are read again this long after the account's data last changed. */
const KEYS_PAUSE_MS = 1000;
const close = () => {
  setTable({ open: false });
  document.querySelector<HTMLElement>('.table-open')?.focus();
};

/** The map tools' button that opens and closes the table. */
export function TableButton() {
  const open = useTable((s) => s.open);
  const ready = useApp((s) => s.account !== null);
  const key = useKeyName('table');
  return (
    <button type="button" className="table-open" aria-label="Attribute table" aria-keyshortcuts={key ?? undefined} title={`Every parcel as a table${keyHint(key)}`}
      aria-pressed={open} disabled={!ready} onClick={toggleTable}>
      ☰<span className="tool-words"> Table</span>
    </button>
  );
}

export function ParcelTable() {
  const api = useApi();
  const account = useApp((s) => s.account);
  const farmId = useApp((s) => s.farmId);
  const farms = useApp((s) => s.farms);
  const version = useApp((s) => s.version);
  const selectedId = useApp((s) => s.selectedId);
  const { scope, sort, boxes, selected, anchor, reveal } = useTable();
  const [filters, setFilters] = useState(() => filtersOf(boxes));
  const [keys, setKeys] = useState<string[]>([]);
  const [keysAsked, setKeysAsked] = useState(0);
  const [view, setView] = useState<[number, number]>([0, 40]);
  const [active, setActive] = useState(0);
  const [scrollTo, setScrollTo] = useState<{ i: number; n: number } | null>(null);
  // The parcel this table last selected on the map itself: a change of the map's selection to another came from the map.
  const own = useRef<string | null>(null);

  const farm = scope === 'farm' ? farmId ?? undefined : undefined;
  useEffect(() => {
    const t = setTimeout(() => setFilters(filtersOf(boxes)), FILTER_PAUSE_MS);
    return () => clearTimeout(t);
  }, [boxes]);
  const query = useMemo<TableQuery | null>(() => (account ? { account: account.id, ...(farm ? { farm } : {}), sort, ...(filters.length ? { filters } : {}) } : null),
    [account?.id, farm, sort, filters]);
  const rows = useTableRows(api, query, version, view[0], view[1]);
  const total = rows.total;

  useEffect(() => {
    if (!account) return;
    let live = true;
    api.parcelTableKeys({ account: account.id, ...(farm ? { farm } : {}) }).then((k) => { if (live) setKeys(k); }, () => {});
    return () => { live = false; };
  }, [api, account?.id, farm, keysAsked]);
  // The data changed (an edit, an undo, a sync): the keys read again once the changes pause, a burst of them once.
  useEffect(() => {
    const t = setTimeout(() => setKeysAsked((n) => n + 1), KEYS_PAUSE_MS);
    return () => clearTimeout(t);
  }, [version]);
  // A key no parcel has any more (an undo took it off) keeps its column while the table is filtered or sorted by it:
  // a filter the user cannot see would hide rows without a word.
  const columns = useMemo(() => {
    const used = [...Object.keys(boxes).filter((c) => boxes[c]!.trim() !== ''), sort.column].filter((c) => c.startsWith('meta:'));
    return [...new Set([...BASE_COLUMNS, ...keys.map((k) => `meta:${k}`), ...used])];
  }, [keys, boxes, sort.column]);

  // Another query: the first row, nothing selected that it may not show.
  useEffect(() => { setActive(0); setScrollTo({ i: 0, n: Date.now() }); }, [query]);

  /** Finds a parcel among the rows and selects it alone, in view; says so when the rows shown do not hold it. */
  const find = async (id: string) => {
    if (!query) return;
    const page = await api.parcelTable({ query, offset: 0, limit: 1, find: id });
    if (page.found === null || page.found === undefined) return void say('That parcel is not among the rows the table shows (another farm, or filtered out).');
    setActive(page.found);
    setScrollTo({ i: page.found, n: Date.now() });
    selectRows([id], page.found);
  };
  // A parcel picked on the map (or by the search, the list): found and selected here.
  useEffect(() => { if (selectedId && selectedId !== own.current) void find(selectedId).catch(() => {}); }, [selectedId]);
  useEffect(() => { if (reveal) void find(reveal.id).catch(() => {}); }, [reveal]);

  const ids = (from: number, to: number) => api.parcelTableIds({ query: query!, offset: Math.min(from, to), limit: Math.min(MAX_TABLE_IDS, Math.abs(to - from) + 1) });
  const pick = (i: number, how: { shift: boolean; toggle: boolean; only: boolean }) => {
    if (!query) return;
    setActive(i);
    const r = rows.row(i);
    if (how.shift && anchor !== null) {
      void ids(anchor, i).then((got) => selectRows(got, anchor), () => {});
      return;
    }
    if (!r) return;
    if (how.toggle) {
      const next = new Set(selected);
      if (!next.delete(r.id)) next.add(r.id);
      selectRows(next, i);
      return;
    }
    selectRows([r.id], i);
    // One row picked: the map selects it too, and the side panel opens it.
    own.current = r.id;
    set({ selectedId: r.id });
  };
  const selectAll = () => {
    if (!query || !total) return;
    if (total > MAX_TABLE_IDS) say(`The first ${MAX_TABLE_IDS.toLocaleString('en-US')} rows are selected: filter the table to select among more.`);
    void ids(0, total - 1).then((got) => selectRows(got, 0), () => {});
  };
  const open = (i: number) => {
    const r = rows.row(i);
    if (r) void zoomToParcel(api, r.id);
  };

  const farmName = farms.find((f) => f.id === farm)?.name;
  const title = farm ? `Parcels of ${farmName ?? 'the farm'}` : `Parcels of ${account?.label || 'the account'}`;
  return (
    <section className="parcel-table" role="region" aria-labelledby="parcel-table-title">
      <div className="table-head">
        <h2 id="parcel-table-title">{title}</h2>
        <label>Rows of{' '}
          <select value={scope} onChange={(e) => setTable({ scope: e.target.value as 'farm' | 'account', selected: new Set(), anchor: null })}>
            <option value="farm" disabled={!farmId}>the chosen farm</option>
            <option value="account">the whole account</option>
          </select>
        </label>
        <span className="table-count" aria-live="polite">
          {total === null ? 'Reading…' : `${total.toLocaleString('en-US')} row${total === 1 ? '' : 's'}`}{selected.size ? `, ${selected.size.toLocaleString('en-US')} selected` : ''}
        </span>
        {selected.size ? <button type="button" onClick={() => selectRows([], null)}>Clear selection</button> : null}
        <button type="button" onClick={close} aria-label="Close the table">Close</button>
      </div>
      <TableGrid columns={columns} rows={rows} onView={(a, b) => setView([a, b])} active={active} onPick={pick} onSelectAll={selectAll} onOpen={open} onClose={close} scrollTo={scrollTo} />
      <div className="table-foot">
        {query ? <ExportButtons label="the rows shown" table={query} prefix="Export the rows shown" /> : null}
        {selected.size ? <BulkEditForm keys={keys} onDone={() => setKeysAsked((n) => n + 1)} /> : <span className="muted">Select rows (Shift or Ctrl for more, or on the map with Shift) to edit them at once.</span>}
      </div>
    </section>
  );
}
