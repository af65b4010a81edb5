// The connection pool of the PostgreSQL store (issue 15). Bounded, so that several service processes on one database
// stay under its max_connections; every connection carries its own timeouts, so that no request can hold a
// connection, a lock or a transaction open forever, whatever the code above it does.
import pg from 'pg';

export interface PgPoolOptions {
  /** Connections at most (default 10). Several processes share the server's max_connections: size them together. */
  max?: number;
  /**
   * A statement still running after this is cancelled by the server (default 30 s, the service's default
   * GATEWAY_TIMEOUT_MS: the client has had its 504 by then). 0 turns it off.
   */
  statementTimeoutMs?: number;
  /** A session idle inside a transaction this long is ended by the server, releasing its locks (default 10 s). */
  idleInTransactionTimeoutMs?: number;
  /**
   * The client gives up on a query after this (default none: the server's statement_timeout bounds it). For a server
   * that may stop answering altogether (a standby cut off by the network), where no server-side timeout fires.
   */
  queryTimeoutMs?: number;
  /** How long to wait for a new connection (default 5 s); a pool at `max` queues requests instead. */
  connectionTimeoutMs?: number;
  /** An idle connection is closed after this (default 30 s). */
  idleTimeoutMs?: number;
  /** Shown in pg_stat_activity and the server's log (default 'furrow-service'). */
  applicationName?: string;
  /**
   * An idle connection that fails (the server restarted, a network cut) is dropped by the pool; without a listener
   * node-postgres would throw it as an uncaught error and end the process. Default: one line on stderr.
   */
  onIdleError?: (err: Error) => void;
}

const INT8 = 20;
const TIMESTAMPTZ = 1184;

/**
 * int8 (ids, COUNT(*), micro-hectares) as a number rather than node-postgres's string: every value the store keeps
 * in one is far below 2^53, and one that is not is refused rather than silently rounded.
 */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 ${text} does not fit a JavaScript number exactly`);
  return n;
}

const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date;

/**
 * timestamptz as the ISO 8601 string the SQLite store keeps and the API returns (new Date().toISOString(): UTC,
 * milliseconds), not a Date: the store's rows read the same from either database.
 */
const parseTimestamptz = (text: string): string => parseTimestamp(text).toISOString();

const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === INT8) return parseInt8;
    if (format !== 'binary' && oid === TIMESTAMPTZ) return parseTimestamptz;
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function count(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}, not ${value}`);
  return value;
}

/**
 * A pool on `url` (postgres://user:password@host:port/database?sslmode=…, or ?host=/socket/dir for a Unix socket).
 * The timeouts travel as startup parameters of each connection, with no extra round trip; a setting in the URL
 * itself (?application_name=…) takes precedence over the option.
 */
export function openPgPool(url: string, opts: PgPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: count('max', opts.max ?? 10, 1),
    statement_timeout: count('statementTimeoutMs', opts.statementTimeoutMs ?? 30_000, 0),
    idle_in_transaction_session_timeout: count('idleInTransactionTimeoutMs', opts.idleInTransactionTimeoutMs ?? 10_000, 0),
    connectionTimeoutMillis: count('connectionTimeoutMs', opts.connectionTimeoutMs ?? 5_000, 1),
    ...(opts.queryTimeoutMs === undefined ? {} : { query_timeout: count('queryTimeoutMs', opts.queryTimeoutMs, 1) }),
    idleTimeoutMillis: count('idleTimeoutMs', opts.idleTimeoutMs ?? 30_000, 0),
    application_name: opts.applicationName ?? 'furrow-service',
    // A managed database is often behind a load balancer or NAT that forgets idle TCP connections silently.
    keepAlive: true,
    types: TYPES,
  });
  const onIdleError = opts.onIdleError ?? ((err: Error) => process.stderr.write(`PostgreSQL: an idle connection failed and was dropped: ${err.message}\n`));
  pool.on('error', onIdleError);
  // A client out of the pool between two statements (a listing's snapshot held while its body streams, a transaction
  // between queries) whose connection ends (PgBouncer restarted, the server failed over, a session timeout) emits
  // 'error' on the client, not the pool: with no listener, Node throws it and the whole process ends. Its holder
  // learns of it anyway, from its next query's rejection, and releases the client, which the pool then discards.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
