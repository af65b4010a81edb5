// The attribute table's grid, virtualised: only the rows in view (and a few either side) are in the page, placed at
// their offset in a body as tall as every row would be, so 100,000 rows scroll as 40 do. The headers sort (again:
// the other way), the boxes below them filter (filter-text.ts). The focus stays on the grid and the row with the
// keyboard's attention is its active descendant: arrows move it and select its row, Shift extends the selection from
// the anchor, Space adds or takes a row, Ctrl+A selects every row shown, Enter shows the parcel on the map.
import { memo, useCallback, useEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactElement } from 'react';
import type { TableRow } from '../../../core/api.ts';
import { columnTitle } from '../../../core/table/columns.ts';
import { hectares, stateColor, stateLabel } from '../../states.ts';
import type { TableRows } from './useTableRows.ts';
import { FILTER_HINT } from './filter-text.ts';
import { setTable, useTable } from './table-store.ts';

export const ROW_H = 26;
const HEAD_H = 2 * ROW_H;
const OVERSCAN = 8;

const width = (column: string) => ({ name: 200, hectares: 90, farm: 150, state: 110, crop: 130 } as Record<string, number>)[column] ?? 140;

function cell(row: TableRow, column: string): { text: string; dot?: string } {
  switch (column) {
    case 'name': return { text: row.name };
    case 'hectares': return { text: hectares(row.hectares) };
    case 'farm': return { text: row.farm };
    case 'state': return { text: stateLabel(row.state), dot: stateColor(row.state) };
    case 'crop': return { text: row.crop ?? '' };
  }
  const v = row.metadata[column.slice('meta:'.length)];
  return { text: v === undefined || v === null ? '' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v) };
}

/**
 * One row, drawn again only when its parcel, its selection, its focus or the columns change: a scroll adds the rows
 * coming into view and leaves the others as they are (re-rendering 40 rows of 10 cells on every scroll event was most
 * of a frame's time under load).
 */
const Row = memo(function Row({ i, row, columns, selected, active, width: w, onClick }: {
  i: number; row: TableRow | undefined; columns: string[]; selected: boolean; active: boolean; width: number;
  onClick: (e: MouseEvent, i: number) => void;
}) {
  return (
    <div id={`table-row-${i}`} role="row" aria-rowindex={i + 3} aria-selected={selected} data-parcel={row?.id}
      className={`trow${selected ? ' selected' : ''}${active ? ' active' : ''}`} style={{ top: HEAD_H + i * ROW_H, width: w }} onClick={(e) => onClick(e, i)}>
      {columns.map((c) => {
        const v = row ? cell(row, c) : { text: '…' };
        return (
          <span key={c} role="gridcell" className={`tcell col-${c.startsWith('meta:') ? 'meta' : c}`} style={{ width: width(c) }} title={v.text}>
            {v.dot ? <span className="dot" style={{ background: v.dot }} /> : null}{v.text}
          </span>
        );
      })}
    </div>
  );
});

export interface GridProps {
  columns: string[];
  rows: TableRows;
  /** The rows in view changed: [first, last] by index. */
  onView: (first: number, last: number) => void;
  active: number;
  /** Moves the keyboard's attention to row `i` (selecting as the key or click asks: see ParcelTable's select). */
  onPick: (i: number, how: { shift: boolean; toggle: boolean; only: boolean }) => void;
  onSelectAll: () => void;
  onOpen: (i: number) => void;
  onClose: () => void;
  /** Bring row `i` into view (a nonce: the same row asked twice scrolls twice). */
  scrollTo: { i: number; n: number } | null;
}

export function TableGrid({ columns, rows, onView, active, onPick, onSelectAll, onOpen, onClose, scrollTo }: GridProps) {
  const el = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 400 });
  const sort = useTable((s) => s.sort);
  const boxes = useTable((s) => s.boxes);
  const selected = useTable((s) => s.selected);
  const total = rows.total ?? 0;
  const first = Math.max(0, Math.floor(view.top / ROW_H) - OVERSCAN);
  const last = Math.min(total - 1, Math.ceil((view.top + view.height - HEAD_H) / ROW_H) + OVERSCAN);
  const full = columns.reduce((w, c) => w + width(c), 0);

  useEffect(() => { onView(first, Math.max(first, last)); }, [first, last]);
  useEffect(() => {
    const g = el.current;
    if (!g) return;
    const measure = () => setView({ top: g.scrollTop, height: g.clientHeight });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(g);
    return () => ro.disconnect();
  }, []);
  // A row asked for (found on the map, moved to by a key) within the body's view, below the sticky headers.
  const bringIntoView = (i: number) => {
    const g = el.current;
    if (!g) return;
    const y = i * ROW_H;
    if (y < g.scrollTop) g.scrollTop = y;
    else if (y + ROW_H > g.scrollTop + g.clientHeight - HEAD_H) g.scrollTop = y + ROW_H - (g.clientHeight - HEAD_H);
  };
  useEffect(() => { if (scrollTo) bringIntoView(scrollTo.i); }, [scrollTo]);

  const page = Math.max(1, Math.floor((view.height - HEAD_H) / ROW_H) - 1);
  const onKey = (e: KeyboardEvent) => {
    if ((e.target as HTMLElement).tagName === 'INPUT') {
      if (e.key === 'Escape' || e.key === 'ArrowDown') { e.preventDefault(); el.current?.focus(); }
      return;
    }
    const to = (i: number) => {
      e.preventDefault();
      const j = Math.max(0, Math.min(total - 1, i));
      onPick(j, { shift: e.shiftKey, toggle: false, only: !e.shiftKey });
      bringIntoView(j);
    };
    if (e.key === 'ArrowDown') to(active + 1);
    else if (e.key === 'ArrowUp') to(active - 1);
    else if (e.key === 'PageDown') to(active + page);
    else if (e.key === 'PageUp') to(active - page);
    else if (e.key === 'Home') to(0);
    else if (e.key === 'End') to(total - 1);
    else if (e.key === ' ') { e.preventDefault(); onPick(active, { shift: false, toggle: true, only: false }); }
    else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') { e.preventDefault(); onSelectAll(); }
    else if (e.key === 'Enter') { e.preventDefault(); onOpen(active); }
    else if (e.key === 'Escape') { e.preventDefault(); onClose(); }
  };
  // One handler for every row, whatever the render: a new one each time would draw every row again (Row is memo).
  const pickRef = useRef(onPick);
  pickRef.current = onPick;
  const onRowClick = useCallback((e: MouseEvent, i: number) => {
    el.current?.focus();
    pickRef.current(i, { shift: e.shiftKey, toggle: e.ctrlKey || e.metaKey, only: !e.shiftKey && !(e.ctrlKey || e.metaKey) });
  }, []);

  const shown: ReactElement[] = [];
  for (let i = first; i <= last; i++) {
    const r = rows.row(i);
    shown.push(<Row key={i} i={i} row={r} columns={columns} selected={r ? selected.has(r.id) : false} active={i === active} width={full} onClick={onRowClick} />);
  }

  return (
    <div ref={el} className="table-scroll" role="grid" aria-label="Parcels" aria-rowcount={total + 2} aria-colcount={columns.length} aria-multiselectable="true"
      tabIndex={0} aria-activedescendant={total > 0 ? `table-row-${active}` : undefined} onKeyDown={onKey}
      onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}>
      <div className="table-body" style={{ height: HEAD_H + total * ROW_H, width: full }}>
        <div className="thead" role="row" aria-rowindex={1} style={{ width: full }}>
          {columns.map((c) => {
            const on = sort.column === c;
            return (
              <span key={c} role="columnheader" aria-sort={on ? (sort.desc ? 'descending' : 'ascending') : 'none'} style={{ width: width(c) }} className="tcell">
                <button type="button" title={`Sort by ${columnTitle(c)}${on ? ' the other way' : ''}`} onClick={() => setTable({ sort: { column: c, desc: on ? !sort.desc : false } })}>
                  {columnTitle(c)}{on ? (sort.desc ? ' ▼' : ' ▲') : ''}
                </button>
              </span>
            );
          })}
        </div>
        <div className="tfilters" role="row" aria-rowindex={2} style={{ width: full }}>
          {columns.map((c) => (
            <span key={c} role="gridcell" className="tcell" style={{ width: width(c) }}>
              <input aria-label={`Filter ${columnTitle(c)}`} title={FILTER_HINT} placeholder="Filter" value={boxes[c] ?? ''}
                onChange={(e) => setTable((s) => ({ boxes: { ...s.boxes, [c]: e.target.value } }))} />
            </span>
          ))}
        </div>
        {shown}
      </div>
    </div>
  );
}
