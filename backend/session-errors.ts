// What a session is told when a call fails (core/rpc.ts serve's toError), by who is at the other end. A refusal the
// backend words itself (an RpcError with its code) is said to everyone. An internal error — anything else a handler
// threw, or an RpcError it coded internal_error — carries whatever its cause wrote: a file system error names
// absolute paths (the user's name, FURROW_HOME), a library's error its internals. The user's own processes (the CLI,
// the launcher, tests: 'cli') get it as it is; a page, which may run code the user did not write, gets a general
// sentence with a reference, and the full error goes to the host's log (its stderr), under the same reference.
// Except a request that got no answer (sync/transport.ts NetworkError: a method, an API path and the transport's
// reason, all the app's own words), which a page is told as the service being unreachable.
import { randomBytes } from 'node:crypto';
import { defaultToError, RpcCode, RpcError, type Caller } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { noRoomError } from '../platform/node/no-room.ts';

/** sync/transport.ts's NetworkError, told by its shape (that module loads the HTTP client, which the host loads late). */
const isNetworkError = (err: unknown): err is Error =>
  err instanceof Error && err.name === 'NetworkError' && typeof (err as { reason?: unknown }).reason === 'string' && typeof (err as { sent?: unknown }).sent === 'boolean';

/** A page is told a full disk in words, without the folder's path (a page never gets one): the CLI names it. */
export const PAGE_DISK_FULL_MESSAGE = "The disk holding the app's data is full: nothing of this was written, and nothing queued was lost. Free at least 64 MB on that disk, then try again.";

export const PAGE_INTERNAL_MESSAGE = "Something went wrong in the app's backend (internal_error); details are in its log";

/** The toError of a session of `caller`; `log` writes one entry of the host's log. */
export function sessionErrors(caller: Caller, log: (text: string) => void): (err: unknown) => RpcError {
  return (err) => {
    if (err instanceof RpcError && err.code !== RpcCode.internal) return err;
    if (caller === 'cli') return defaultToError(err);
    if (isNetworkError(err)) return new RpcError(ApiErrorCode.serviceUnavailable, err.message);
    if (noRoomError(err)) return new RpcError(ApiErrorCode.diskFull, PAGE_DISK_FULL_MESSAGE);
    const ref = randomBytes(4).toString('hex');
    const what = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
    log(`Internal error in a page's call (ref ${ref}): ${what}\n`);
    return new RpcError(RpcCode.internal, `${PAGE_INTERNAL_MESSAGE} (ref ${ref})`);
  };
}
