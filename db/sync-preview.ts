// What an account's next sync sends, read from its outbox: the creates, updates and deletes of farms, parcels and
// crops waiting to go, and the hectares they add to what the service bills (billing is by the total hectares of
// parcels): created parcels, the change of an edited shape, minus deleted parcels. Uncertain work is counted apart:
// it is checked on the service before anything of it is sent again.
import { cachedStatement } from '../platform/node/statements.ts';
import type { Db } from './open.ts';
import type { Entity, OpKind } from './types.ts';

export interface SyncPreview {
  /** Ops queued to send, by entity and kind. */
  ops: Record<Entity, Record<OpKind, number>>;
  /** Hectares the queued parcel work adds to the account's total on the service (negative: it removes). */
  hectaresAdded: number;
  /** Of which: the parcels created, and the ones deleted. */
  hectaresCreated: number;
  hectaresDeleted: number;
  /** Ops of unknown outcome, checked on the service first (uncertain, or in flight from a run that stopped). */
  uncertain: number;
}

const empty = (): Record<OpKind, number> => ({ create: 0, update: 0, delete: 0 });

export function syncPreview(db: Db, accountId: string): SyncPreview {
  const ops = { farm: empty(), parcel: empty(), crop: empty() };
  const counts = cachedStatement(db, `SELECT entity, op, count(*) AS n FROM outbox WHERE account_id = ? AND state = 'queued' GROUP BY entity, op`)
    .all(accountId) as { entity: Entity; op: OpKind; n: number }[];
  for (const c of counts) ops[c.entity][c.op] = c.n;
  // A parcel's hectares on the service: its base's (the last state the service had); a NULL base on a parcel the
  // service has is the row itself (parcel-state.ts parcelBase).
  const ha = cachedStatement(db, `SELECT
      coalesce(sum(CASE WHEN o.op = 'create' THEN p.hectares END), 0) AS created,
      coalesce(sum(CASE WHEN o.op = 'update' AND p.base IS NOT NULL THEN p.hectares - (p.base ->> '$.hectares') END), 0) AS changed,
      coalesce(sum(CASE WHEN o.op = 'delete' THEN coalesce(p.base ->> '$.hectares', p.hectares) END), 0) AS deleted
    FROM outbox o JOIN parcels p ON p.local_id = o.local_id
    WHERE o.account_id = ? AND o.entity = 'parcel' AND o.state = 'queued'`).get(accountId) as { created: number; changed: number; deleted: number };
  const uncertain = cachedStatement(db, `SELECT count(*) FROM outbox WHERE account_id = ? AND state IN ('uncertain', 'in_flight')`).pluck().get(accountId) as number;
  return { ops, hectaresAdded: ha.created + ha.changed - ha.deleted, hectaresCreated: ha.created, hectaresDeleted: ha.deleted, uncertain };
}

/** An op that needs a look: uncertain (or in flight), rejected by the service, or blocked with its account. */
export interface SyncItem {
  op: number; entity: Entity; kind: OpKind; localId: string; name: string | null;
  state: 'uncertain' | 'in_flight' | 'rejected' | 'blocked';
  /** The service's reason, or what the engine found (the evidence of an uncertain op). */
  reason: string | null;
  sentAt: string | null;
  /** The service's listing looked at this many times without finding an uncertain create yet. */
  checks: number;
  nextAttemptAt: string | null;
  batch: string | null;
}

/** At most this many items are listed per state; the account's counts say how many there are. */
export const SYNC_ITEMS_MAX = 200;

/** The ops of an account that need a look, oldest first, with the name of what they are about. */
export function syncItems(db: Db, accountId: string): SyncItem[] {
  return cachedStatement(db, `SELECT * FROM (SELECT o.id AS op, o.entity, o.op AS kind, o.local_id AS localId,
        CASE o.entity WHEN 'parcel' THEN p.name WHEN 'farm' THEN f.name ELSE coalesce(c.name, c.campaign) END AS name,
        o.state, o.last_error AS reason, o.sent_at AS sentAt, o.checks, o.next_attempt_at AS nextAttemptAt, o.batch_id AS batch,
        row_number() OVER (PARTITION BY o.state ORDER BY o.id) AS n
      FROM outbox o
      LEFT JOIN parcels p ON o.entity = 'parcel' AND p.local_id = o.local_id
      LEFT JOIN farms f ON o.entity = 'farm' AND f.local_id = o.local_id
      LEFT JOIN crops c ON o.entity = 'crop' AND c.local_id = o.local_id
      WHERE o.account_id = ? AND o.state IN ('uncertain', 'in_flight', 'rejected', 'blocked'))
    WHERE n <= ${SYNC_ITEMS_MAX} ORDER BY op`).all(accountId).map((row) => {
    const { n: _, ...item } = row as SyncItem & { n: number };
    return item;
  });
}
