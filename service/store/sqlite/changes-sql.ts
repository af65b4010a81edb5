// The SQL that records changes for the feed (migration 007's triggers and insertParcels): the account's counter
// moves by the number of objects, and each object's row takes one of the new numbers, in id order. Every number is
// used once per account, so a page of the feed can end anywhere (its cursor is a number) without splitting or
// repeating anything. SQLite has one writer at a time: numbers are taken in commit order.

/**
 * Statements (each ending in ';') recording the objects `ids` (a SELECT with an `id` column) of `entity` as changed
 * (or deleted) for the account `account` (an SQL expression). With no object, the counter moves by 0. Nothing for
 * an account that is gone: its own delete cascades into its farms (set to orphans), crops and plants, whose triggers
 * then run without it, and its feed went with it.
 */
export function recordSql(account: string, entity: 'farm' | 'parcel' | 'crop' | 'plant', ids: string, deleted: boolean): string {
  return recordStatements(account, entity, ids, deleted).map((s) => `${s};`).join('\n');
}

/** The same two statements, apart (a prepared statement holds one). */
export function recordStatements(account: string, entity: 'farm' | 'parcel' | 'crop' | 'plant', ids: string, deleted: boolean): [string, string] {
  const exists = `EXISTS (SELECT 1 FROM accounts WHERE id = ${account})`;
  return [`INSERT INTO change_seq (account_id, seq) SELECT ${account}, (SELECT COUNT(*) FROM (${ids})) WHERE ${exists}
      ON CONFLICT (account_id) DO UPDATE SET seq = seq + excluded.seq`,
    `INSERT INTO changes (account_id, entity, id, seq, deleted, at)
      SELECT ${account}, '${entity}', s.id,
        (SELECT seq FROM change_seq WHERE account_id = ${account}) - COUNT(*) OVER () + row_number() OVER (ORDER BY s.id),
        ${deleted ? 1 : 0}, unixepoch()
      FROM (${ids}) s WHERE ${exists}
      ON CONFLICT (account_id, entity, id) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, at = excluded.at`];
}
