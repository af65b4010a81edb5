// The mirror's undo engine: every user edit (MirrorWriter) is recorded as one history entry, the rows it touched
// before and after, and undo/redo bring the rows back to either side. History is persisted (it survives a restart)
// and kept per account: an edit's entry is its account's, and undo, redo and the end of redo touch only that account.
// The entry's stored form is history.ts's.

import type { Db } from './open.ts';
import type { Entity, Row } from './types.ts';
import { getRow, insertRow, updateRow } from './rows.ts';
import { enqueue, purgeTombstones, withdrawDelete } from './outbox.ts';
import { loadChanges, storeChanges, type Change } from './history.ts';

const now = () => new Date().toISOString();

/** A deleted row (tombstone or pending delete) is no state to restore. */
const live = (r: Row | undefined): Row | null => (r && !r.deleted ? r : null);

/** Creating more rows than this in one edit records them by reference (see history.ts). */
const BULK_HISTORY = 200;

// Fields the user edits; everything else (server ids, base, timestamps) belongs to sync, and undo leaves it alone.
const USER_FIELDS: Record<Entity, readonly string[]> = {
  farm: ['name'],
  parcel: ['farm_local_id', 'name', 'source_type', 'point', 'geometry', 'hectares', 'metadata', 'minx', 'miny', 'maxx', 'maxy'],
  crop: ['parcel_local_id', 'family_id', 'family_name', 'name', 'campaign', 'area', 'variety', 'harvested_qty', 'sowing', 'closure', 'is_active'],
};
const RANK: Record<Entity, number> = { farm: 0, parcel: 1, crop: 2 };

/** How an edit writes fields of a row (MirrorWriter's: the row stamped, its update queued for the service). */
export type UpdateRow = (entity: Entity, row: Row, fields: Partial<Record<string, unknown>>) => void;

export class UndoHistory {
  /** The rows the edit being recorded has touched, as they were before it; null outside an edit. */
  private changes: Change[] | null = null;
  // entity:local_id of `changes`, so touching the 5,000th row of a bulk edit is not a scan of the first 4,999.
  private readonly touched = new Set<string>();

  /** Undo and redo write rows through `update`, so that the service hears of them as of any edit. */
  constructor(private readonly db: Db, private readonly update: UpdateRow) {}

  /** One edit: a transaction of its own, or a savepoint in the caller's. */
  edit<T>(label: string, fn: () => T): T {
    return this.db.transaction(() => this.record(label, fn))();
  }

  /** Runs fn and records what it changed as one undo entry, in whatever transaction is open. */
  record<T>(label: string, fn: () => T): T {
    this.changes = [];
    this.touched.clear();
    try {
      const out = fn();
      const bulk = this.changes.filter((c) => c.before === null).length > BULK_HISTORY;
      const changes = this.changes.map((c) => ({
        ...c, after: bulk && c.before === null ? 'current' as const : live(getRow(this.db, c.entity, c.local_id)),
      }));
      if (changes.length) {
        // An edit's rows are all of one account: its undo entry is that account's, and a new edit ends only that
        // account's redo (another account's undone edits stay redoable).
        const first = changes[0]!;
        const account = (first.before ?? (first.after !== 'current' ? first.after : null) ?? getRow(this.db, first.entity, first.local_id))?.account_id ?? null;
        if (this.db.prepare('DELETE FROM history WHERE undone = 1 AND account_id IS ?').run(account).changes > 0) purgeTombstones(this.db, account);
        this.db.prepare('INSERT INTO history (label, changes, account_id, created) VALUES (?, ?, ?, ?)').run(label, storeChanges(changes), account, now());
      }
      return out;
    } finally {
      this.changes = null;
    }
  }

  /** The edit being recorded is about to change (or, `isNew`, create) this row: its state before goes in the entry. */
  touch(entity: Entity, localId: string, isNew = false): void {
    const key = `${entity}:${localId}`;
    if (!this.changes || this.touched.has(key)) return;
    this.touched.add(key);
    const before = isNew ? null : getRow(this.db, entity, localId) ?? null;
    this.changes.push({ entity, local_id: localId, before: before && before.deleted ? null : before, after: null });
  }

  /** Rows the edit being recorded created in bulk, all new: no lookups, and never a second touch of the same row. */
  created(entity: Entity, localIds: readonly string[]): void {
    for (const id of localIds) this.changes!.push({ entity, local_id: id, before: null, after: null });
  }

  /** Undoes the last edit still done: of one account, or of any. Its label, or null when there is none. */
  undo(accountId?: string): string | null {
    return this.step(true, accountId);
  }

  /** Redoes the last edit undone (the undone entries are the newest of their account, so the oldest of them). */
  redo(accountId?: string): string | null {
    return this.step(false, accountId);
  }

  private step(undo: boolean, accountId?: string): string | null {
    const h = this.db.prepare(`SELECT id, label, changes FROM history WHERE undone = ? AND (? IS NULL OR account_id = ?) ORDER BY id ${undo ? 'DESC' : 'ASC'} LIMIT 1`)
      .get(undo ? 0 : 1, accountId ?? null, accountId ?? null) as { id: number; label: string; changes: string } | undefined;
    if (!h) return null;
    this.db.transaction(() => {
      this.apply(loadChanges(h.changes).map((c) => ({ ...c, target: undo ? c.before : c.after })));
      this.db.prepare('UPDATE history SET undone = ? WHERE id = ?').run(undo ? 1 : 0, h.id);
    })();
    return h.label;
  }

  /** Brings rows to the recorded states (undo/redo), parents before children when restoring. */
  private apply(changes: (Change & { target: Row | null | 'current' })[]): void {
    const restores = changes.filter((c) => c.target !== null).sort((a, b) => RANK[a.entity] - RANK[b.entity]);
    const removals = changes.filter((c) => c.target === null).sort((a, b) => RANK[b.entity] - RANK[a.entity]);
    for (const c of removals) {
      const cur = getRow(this.db, c.entity, c.local_id);
      // A farm this edit created that holds parcels the edit did not (pulled from the service since, say) stays: its
      // delete would take them with it on the service.
      if (c.entity === 'farm' && this.db.prepare('SELECT 1 FROM parcels WHERE farm_local_id = ? AND deleted = 0 LIMIT 1').get(c.local_id)) continue;
      if (cur && !cur.deleted) enqueue(this.db, cur.account_id, c.entity, c.local_id, 'delete');
    }
    for (const c of restores) {
      let cur = getRow(this.db, c.entity, c.local_id);
      if (c.target === 'current' && !cur) continue; // its tombstone is gone: nothing left to bring back
      const target = c.target === 'current' ? { ...cur!, deleted: 0 } : c.target!;
      if (cur && cur.deleted && !withdrawDelete(this.db, c.entity, c.local_id)) {
        // The delete already reached the service: bring the row back as a new one (same client reference).
        updateRow(this.db, c.entity, c.local_id, { deleted: 0, server_id: null, key: null, base: null, modified: now() });
        enqueue(this.db, cur.account_id, c.entity, c.local_id, 'create');
        cur = getRow(this.db, c.entity, c.local_id);
      }
      if (!cur) {
        insertRow(this.db, c.entity, { ...target, server_id: null, key: null, base: null, deleted: 0, modified: now() } as Row);
        enqueue(this.db, target.account_id, c.entity, c.local_id, 'create');
        continue;
      }
      const fields: Record<string, unknown> = {};
      for (const f of USER_FIELDS[c.entity]) fields[f] = (target as unknown as Record<string, unknown>)[f];
      this.update(c.entity, cur, fields);
    }
  }
}
