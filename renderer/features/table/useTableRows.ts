// The attribute table's rows as the page holds them: blocks of 100 read from the host as they come into view (at most
// two reads out at once, the newest view first, so a fast scroll does not queue the rows it passed), kept while the
// query stays the same. After a change of the account's data (`version`) the rows shown stay until their fresh block
// arrives, so an edit or a sync does not blank the table; another query starts afresh.
import { useEffect, useReducer, useRef } from 'react';
import type { TableQuery, TableRow } from '../../../core/api.ts';
import type { AppApi } from '../../backend.ts';

export const BLOCK = 100;
const IN_FLIGHT = 2;
/** Blocks kept at most (40,000 rows): a long scroll forgets the ones furthest from the view. */
const KEEP = 400;

interface Cache {
  key: string;
  version: number;
  blocks: Map<number, TableRow[]>;
  /** The same query's blocks before the last change of the data, shown until replaced. */
  stale: Map<number, TableRow[]>;
  pending: Set<number>;
  total: number | null;
  want: [number, number];
}

export interface TableRows {
  total: number | null;
  row: (i: number) => TableRow | undefined;
}

export function useTableRows(api: AppApi, query: TableQuery | null, version: number, first: number, last: number): TableRows {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const key = query ? JSON.stringify(query) : '';
  const cache = useRef<Cache>({ key: '', version, blocks: new Map(), stale: new Map(), pending: new Set(), total: null, want: [0, 0] });
  const c = cache.current;
  if (c.key !== key) Object.assign(c, { key, version, blocks: new Map(), stale: new Map(), pending: new Set(), total: null });
  else if (c.version !== version) Object.assign(c, { version, stale: new Map([...c.stale, ...c.blocks]), blocks: new Map(), pending: new Set() });
  c.want = [Math.floor(first / BLOCK), Math.floor(Math.max(first, last) / BLOCK)];

  useEffect(() => {
    if (!query) return;
    const fetchMore = () => {
      const cur = cache.current;
      if (cur.key !== key || cur.pending.size >= IN_FLIGHT) return;
      const [a, b] = cur.want;
      const total = cur.total;
      for (let blk = a; blk <= b && cur.pending.size < IN_FLIGHT; blk++) {
        if (cur.blocks.has(blk) || cur.pending.has(blk) || (total !== null && blk * BLOCK >= total && blk > 0)) continue;
        const asked = { key: cur.key, version: cur.version };
        cur.pending.add(blk);
        api.parcelTable({ query, offset: blk * BLOCK, limit: BLOCK }).then((page) => {
          const now = cache.current;
          if (now.key !== asked.key || now.version !== asked.version) return;
          now.pending.delete(blk);
          now.blocks.set(blk, page.rows);
          now.stale.delete(blk);
          now.total = page.total;
          if (now.blocks.size > KEEP) {
            const mid = (now.want[0] + now.want[1]) / 2;
            const far = [...now.blocks.keys()].sort((x, y) => Math.abs(y - mid) - Math.abs(x - mid)).slice(0, now.blocks.size - KEEP);
            for (const f of far) now.blocks.delete(f);
          }
          bump();
          fetchMore();
        }, () => { cache.current.pending.delete(blk); });
      }
    };
    fetchMore();
  });

  return {
    total: c.total,
    row: (i) => {
      const blk = Math.floor(i / BLOCK);
      return (c.blocks.get(blk) ?? c.stale.get(blk))?.[i - blk * BLOCK];
    },
  };
}
