// One Store method, one transaction: BEGIN … COMMIT on one pooled client, ROLLBACK on any error, the client back in
// the pool in every case. What SQLite's db.transaction() gave the SQLite store, for the PostgreSQL store.
import type pg from 'pg';

/** The SQLSTATE of a unique violation: a constraint, not a read-then-write, decides who wins a race. */
export const UNIQUE_VIOLATION = '23505';

export const isPgError = (e: unknown, code: string): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;

/**
 * Runs `fn` in a transaction on one client of the pool; its result once committed, its error once rolled back.
 * `begin` names another isolation where one is needed (a snapshot for several reads).
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  // A client whose ROLLBACK failed is in an unknown state (a broken connection, an aborted protocol): release(err)
  // makes the pool destroy it instead of handing it to the next request.
  let broken: Error | undefined;
  try {
    await client.query(begin).catch((e: Error) => { broken = e; throw e; });
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch((rollback: Error) => { broken = rollback; });
      throw e;
    }
  } finally {
    client.release(broken);
  }
}

/**
 * Whether a string can be compared with text at all: PostgreSQL's text cannot hold U+0000 (SQLite's can) and refuses a
 * parameter with one (22021), where SQLite simply finds nothing. A lookup by such a string (a path's %00, a token's
 * kid) answers "not found" without asking, as SQLite does, rather than failing with a 500.
 */
export const hasNul = (s: string): boolean => s.includes('\u0000');
