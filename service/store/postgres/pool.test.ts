// openPgPool against the test cluster: the limits it promises are the server's, so they are checked there.
import { afterEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { openPgPool, type PgPoolOptions } from './pool.ts';

describe.skipIf(PG_SKIP !== null)('openPgPool', () => {
  const db = useTestDatabase();
  const open: pg.Pool[] = [];
  const pool = (opts: PgPoolOptions = {}) => {
    const p = openPgPool(db().url, opts);
    open.push(p);
    return p;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.end()));
  });

  it('sets the timeouts and the application name on every connection', async () => {
    const p = pool({ statementTimeoutMs: 1500, idleInTransactionTimeoutMs: 2500, applicationName: 'furrow-test' });
    const r = await p.query(`SELECT current_setting('statement_timeout') AS st, current_setting('idle_in_transaction_session_timeout') AS it,
      application_name AS app FROM pg_stat_activity WHERE pid = pg_backend_pid()`);
    expect(r.rows).toEqual([{ st: '1500ms', it: '2500ms', app: 'furrow-test' }]);
  });

  it('has defaults: a 30 s statement timeout, 10 s idle in a transaction, furrow-service', async () => {
    const r = await pool().query(`SELECT current_setting('statement_timeout') AS st, current_setting('idle_in_transaction_session_timeout') AS it,
      current_setting('application_name') AS app`);
    expect(r.rows).toEqual([{ st: '30s', it: '10s', app: 'furrow-service' }]);
  });

  it('cancels a statement that runs past the statement timeout, and the connection stays usable', async () => {
    const p = pool({ max: 1, statementTimeoutMs: 200 });
    const started = Date.now();
    const err = await p.query('SELECT pg_sleep(10)').catch((e: unknown) => e as Error & { code?: string });
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe('57014'); // query_canceled
    expect((err as Error).message).toMatch(/statement timeout/);
    expect(took).toBeGreaterThanOrEqual(150);
    expect(took).toBeLessThan(5000);
    expect((await p.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('ends a session left idle inside a transaction, releasing its locks', async () => {
    const p = pool({ max: 2, idleInTransactionTimeoutMs: 200 });
    await p.query('CREATE TABLE IF NOT EXISTS idle_lock (x int)');
    const c = await p.connect();
    const lost = new Promise<Error>((resolve) => c.once('error', resolve));
    await c.query('BEGIN');
    await c.query('LOCK TABLE idle_lock IN ACCESS EXCLUSIVE MODE');
    // The holder forgets its transaction; the server ends the session and another connection gets the table.
    expect((await lost).message).toMatch(/idle-in-transaction timeout|terminating connection/);
    c.release(true);
    expect((await p.query('SELECT COUNT(*) AS n FROM idle_lock')).rows).toEqual([{ n: 0 }]);
  });

  it('survives a connection lost while its client is out of the pool between statements: the holder sees the error, the process goes on', async () => {
    const p = pool({ max: 1 });
    const c = await p.connect();
    await c.query('BEGIN');
    const { rows: [me] } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // As PgBouncer's restart or a failover does to a listing holding its snapshot: the connection ends under it.
    // Without a listener on the client this 'error' would end the test process (vitest reports it unhandled).
    await pool().query('SELECT pg_terminate_backend($1)', [me!.pid]);
    await new Promise((ok) => setTimeout(ok, 300));
    await expect(c.query('SELECT 1')).rejects.toThrow();
    c.release(true);
    expect((await p.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('never opens more than max connections: the rest queue', async () => {
    const p = pool({ max: 2 });
    const pids = await Promise.all(Array.from({ length: 6 }, () => p.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')));
    expect(new Set(pids.map((r) => r.rows[0]!.pid)).size).toBeLessThanOrEqual(2);
    expect(p.totalCount).toBeLessThanOrEqual(2);
  });

  it('reports a server it cannot reach instead of hanging', async () => {
    // A socket directory where no server listens: refused at once, and the pool reports it (no hang).
    const p = openPgPool('postgres://furrow@/none?host=/nonexistent-furrow-socket-dir', { connectionTimeoutMs: 1000 });
    open.push(p);
    await expect(p.query('SELECT 1')).rejects.toThrow(/ENOENT|connect/);
  });

  it('reads int8 as a number and timestamptz as the ISO string the SQLite store keeps', async () => {
    const p = pool();
    const iso = '2024-05-06T07:08:09.123Z';
    const r = await p.query('SELECT 9007199254740991::bigint AS big, COUNT(*) AS n, $1::timestamptz AS t, NULL::timestamptz AS none FROM (VALUES (1), (2)) v', [iso]);
    expect(r.rows).toEqual([{ big: 9007199254740991, n: 2, t: iso, none: null }]);
    // Written as a +02:00 local time, read back in UTC with milliseconds, as new Date().toISOString() writes it.
    expect((await p.query("SELECT '2024-05-06 09:08:09+02'::timestamptz AS t")).rows[0].t).toBe('2024-05-06T07:08:09.000Z');
    await expect(p.query('SELECT 9007199254740993::bigint AS big')).rejects.toThrow(/does not fit a JavaScript number/);
  });

  it('refuses an unbounded or nonsensical configuration', () => {
    expect(() => openPgPool(db().url, { max: 0 })).toThrow(RangeError);
    expect(() => openPgPool(db().url, { max: Infinity })).toThrow(RangeError);
    expect(() => openPgPool(db().url, { statementTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => openPgPool(db().url, { connectionTimeoutMs: 0 })).toThrow(RangeError);
  });
});
