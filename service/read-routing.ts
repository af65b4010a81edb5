// Which database serves a read (docs/api.md, "Reads from a standby"). With READ_DATABASE_URL set, the listings and the
// embedded map's data may be read from the standby (store/postgres/standby.ts decides when); every other read and every
// write stays on the primary. Writes are answered with the primary's WAL position (WRITE_LSN_HEADER), which a client
// sends back on its reads (READ_AFTER_HEADER) to read its own writes wherever the balancer sends them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { ErrorCode } from '../core/errors.ts';
import { parseLsn, READ_AFTER_HEADER, READ_AFTER_PRIMARY, READ_FROM_HEADER, WRITE_LSN_HEADER } from '../core/read-after.ts';
import type { Store } from './store/store.ts';
import type { ReadTarget } from './store/postgres/standby.ts';

/** The standby's side as the routes see it (StandbyReads). */
export interface ReadReplica {
  readonly store: Store;
  route(readAfter: bigint | null): ReadTarget;
  failed(err: unknown): void;
  writtenLsn(): Promise<string>;
  close(): Promise<void>;
}

/** The request's READ_AFTER_HEADER: null (none), 'primary', or an LSN; anything else is a 400 with a stable code. */
export function readAfterOf(req: FastifyRequest): bigint | 'primary' | null {
  const raw = req.headers[READ_AFTER_HEADER];
  if (raw === undefined) return null;
  const v = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  if (v.toLowerCase() === READ_AFTER_PRIMARY) return 'primary';
  const lsn = parseLsn(v);
  if (lsn === null) {
    throw new ApiError(ErrorCode.validationFailed, `${READ_AFTER_HEADER} must be an LSN the service sent in ${WRITE_LSN_HEADER} (such as 0/3000148) or '${READ_AFTER_PRIMARY}'`,
      [{ path: `headers/${READ_AFTER_HEADER}`, code: 'invalid_lsn', message: `'${v.slice(0, 40)}' is not an LSN` }]);
  }
  return lsn;
}

/**
 * Runs a routable read on the standby when the replica lets it, else on the primary, and says which answered. A
 * standby failing the read itself (its connection, not an ApiError such as a 404) is set aside and the read is done
 * again on the primary: the client sees the primary's answer, never the standby's failure.
 */
export async function routedRead<T>(primary: Store, replica: ReadReplica | null, req: FastifyRequest, reply: FastifyReply, read: (store: Store) => Promise<T>): Promise<T> {
  if (!replica) return read(primary);
  const after = readAfterOf(req);
  const to = after === 'primary' ? { target: 'primary' as const } : replica.route(after);
  if (to.target === 'standby') {
    try {
      // Before the read: a 404 the standby answers says so too.
      void reply.header(READ_FROM_HEADER, 'standby');
      return await read(replica.store);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      replica.failed(err);
      req.log.warn({ err }, 'a read on the standby failed; done again on the primary');
    }
  }
  void reply.header(READ_FROM_HEADER, 'primary');
  return read(primary);
}

/**
 * Every successful write of the API is answered with the primary's WAL position after it (one cheap query). Only
 * with a replica: without one every read is on the primary and the header would be a round trip for nothing.
 */
export function registerWriteLsn(api: FastifyInstance, replica: ReadReplica | null): void {
  if (!replica) return;
  api.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'GET' || req.method === 'HEAD' || reply.statusCode >= 300) return payload;
    // The write has committed: a primary that fails this one query must not turn it into an error. The client is
    // told to read from the primary instead, as after a write it got no answer to.
    void reply.header(WRITE_LSN_HEADER, await replica.writtenLsn().catch(() => READ_AFTER_PRIMARY));
    return payload;
  });
}
