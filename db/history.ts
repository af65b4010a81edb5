// How an undo entry's changes are stored (history.changes, JSON). Each changed row is a Change; the rows a bulk edit
// (an import) created are stored as their ids alone, one list per entity: {"entity": "parcel", "created": [ids]}
// stands for {"entity": "parcel", "local_id": id, "before": null, "after": "current"} for each id. An import of
// 100,000 parcels wrote 10 MB of such objects, a tenth of a parcel row each, on the way to the disk twice (WAL,
// then the checkpoint); the ids alone are 4 MB. Entries written before this form keep theirs: both are read.

import type { Entity, Row } from './types.ts';

/**
 * One row's change in an undo entry. A row created by a bulk edit records `after: 'current'`: its data stays in
 * its own table (an undone create leaves a tombstone row), so an import does not copy every geometry into the history.
 */
export interface Change { entity: Entity; local_id: string; before: Row | null; after: Row | null | 'current' }

/** Rows created by a bulk edit, by reference. */
interface Created { entity: Entity; created: string[] }

/** The JSON of an entry: bulk-created rows (after 'current', no before) as lists of ids, the others as they are. */
export function storeChanges(changes: readonly Change[]): string {
  const stored: (Change | Created)[] = [];
  const created = new Map<Entity, string[]>();
  for (const c of changes) {
    if (c.before === null && c.after === 'current') {
      let ids = created.get(c.entity);
      if (!ids) created.set(c.entity, (ids = []));
      ids.push(c.local_id);
    } else {
      stored.push(c);
    }
  }
  for (const [entity, ids] of created) stored.push({ entity, created: ids });
  return JSON.stringify(stored);
}

/** An entry's changes, in either form. */
export function loadChanges(json: string): Change[] {
  const out: Change[] = [];
  for (const c of JSON.parse(json) as (Change | Created)[]) {
    if ('created' in c) for (const id of c.created) out.push({ entity: c.entity, local_id: id, before: null, after: 'current' });
    else out.push(c);
  }
  return out;
}
