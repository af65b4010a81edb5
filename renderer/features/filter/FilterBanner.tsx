// Over the map while a metadata filter is on: that the map shows only matching parcels, how many match in the
// account (a world-wide `viewport` with the filter), a way to fit the map to them, and Clear (Esc does not: it is
// drawing's key).
import { useEffect, useState } from 'react';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { clearFilter, fitMap, hasFilter, useBrowse } from '../browse-store.ts';
import { boxOf } from '../zoom/bbox.ts';

const WORLD: [number, number, number, number] = [-180, -90, 180, 90];
/** The backend's largest viewport: beyond it the banner says "more than". */
const COUNT_LIMIT = 50_000;

export function FilterBanner() {
  const api = useApi();
  const filter = useBrowse((s) => s.filter);
  const account = useApp((s) => s.account?.id);
  const version = useApp((s) => s.version);
  const [matches, setMatches] = useState<{ count: number; truncated: boolean; box: [number, number, number, number] | null } | null>(null);
  const on = hasFilter(filter);

  useEffect(() => {
    setMatches(null);
    if (!account || !on) return;
    let live = true;
    api.viewport({ account, bbox: WORLD, limit: COUNT_LIMIT, metadata: filter }).then((fc) => {
      if (live) setMatches({ count: fc.features.length, truncated: fc.truncated, box: boxOf(fc.features.map((f) => f.geometry)) });
    }, () => {});
    return () => { live = false; };
  }, [api, account, filter, on, version]);

  if (!on) return null;
  const text = Object.entries(filter).map(([k, vs]) => `${k} = ${vs.map((v) => (v === '' ? '(empty)' : v)).join(' or ')}`).join(' and ');
  return (
    <div className="filter-banner" role="status" aria-label="Filter on">
      <span className="filter-words" title={`Only parcels with ${text}`}>Filtered: only parcels with {text}.</span>{' '}
      <span data-field="filter-matches">
        {matches ? `${matches.truncated ? 'More than ' : ''}${matches.count.toLocaleString('en-US')} ${matches.count === 1 && !matches.truncated ? 'parcel matches' : 'parcels match'} in the account.` : 'Counting…'}
      </span>{' '}
      {matches?.box ? <button type="button" onClick={() => fitMap(matches.box!)} title="Fit the map to every matching parcel">Show all matches</button> : null}
      <button type="button" onClick={clearFilter} aria-label="Clear filter" title="Show every parcel again">Clear filter</button>
    </div>
  );
}
