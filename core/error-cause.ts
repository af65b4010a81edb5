// Errors wrapped in errors: a driver's error becomes the `cause` of a store's, which becomes the `cause` of a
// request's. What the error *is* (out of space, database unreachable) is decided by the innermost ones.

/** The fields an error of any origin may carry that classifiers look at. */
export interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** How deep the cause chain is followed: deep enough for every wrapping we do, bounded against a cycle. */
const MAX_DEPTH = 4;

/** Whether `err` or one of its causes, up to a few levels down, passes `test`. */
export function someCause(err: unknown, test: (e: ErrorLike) => boolean): boolean {
  let e = err;
  for (let depth = 0; depth < MAX_DEPTH && typeof e === 'object' && e !== null; depth++) {
    if (test(e as ErrorLike)) return true;
    e = (e as ErrorLike).cause;
  }
  return false;
}
