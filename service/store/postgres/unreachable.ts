// The database out of reach, as opposed to a bug: the primary down or failing over, PgBouncer restarting or refusing
// logins for server_login_retry after one failed, a connection cut mid-query. A read meeting it is answered 503 with
// Retry-After (service/errors.ts), which clients retry as they do for any busy service, rather than 500, which says
// the service itself is broken. A write keeps its 500: it may have committed before its connection broke.

import { someCause } from '../../../core/error-cause.ts';

/** Network errors of node-postgres's socket to the database (or to PgBouncer). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/**
 * SQLSTATEs of a server going away or not taking connections: class 08 (connection exception, which PgBouncer uses
 * for its own refusals), admin_shutdown, crash_shutdown, cannot_connect_now (starting up, or promoting), and
 * too_many_connections.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** node-postgres's own errors, which carry no code. */
const POOL_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** Whether `err` (or its cause, a few levels down) says the database cannot be reached now. */
export function databaseUnreachable(err: unknown): boolean {
  return someCause(err, (e) => {
    const code = typeof e.code === 'string' ? e.code : '';
    if (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08')) return true;
    return typeof e.message === 'string' && POOL_MESSAGES.test(e.message);
  });
}
