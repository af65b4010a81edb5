// Browser mode's reconnect pass: what lets a tab left open reconnect after the app restarts, without a new secret in
// its address. The launch token (the printed address's fragment) is good for one launch only; a tab it let in is
// handed a pass over the open WebSocket, one per connection, kept in that tab's sessionStorage. After a restart the
// tab offers the pass instead: the host (backend/tab-passes.ts) keeps only its digest, takes each pass once and hands
// a fresh one, and forgets a pass not used for PASS_TTL_MS. A tab never let in by a launch token has none.
// Shared by both ends (backend/browser-server.ts, renderer/ws-port.ts): no I/O here.

/** The subprotocol prefixes a page offers beside `furrow.v1`: this launch's token, or a pass from an earlier one. */
export const TOKEN_PREFIX = 'furrow-token.';
export const PASS_PREFIX = 'furrow-pass.';

/** A pass unused this long is forgotten: a tab left a week is asked for the printed address again. */
export const PASS_TTL_MS = 7 * 24 * 3_600_000;

/** The frame the host sends first on an accepted WebSocket: never an rpc message (rpc has no `furrowPass`). */
export interface PassFrame { furrowPass: string }

/** 32 random bytes, base64url: a subprotocol token as RFC 6455 allows it. */
export const PASS_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The pass a frame carries, or null when the frame is anything else (an rpc message). */
export function passOf(frame: unknown): string | null {
  if (typeof frame !== 'object' || frame === null) return null;
  const p = (frame as Partial<PassFrame>).furrowPass;
  return typeof p === 'string' && PASS_PATTERN.test(p) ? p : null;
}

/** The secrets a page offered, read from its Sec-WebSocket-Protocol list. */
export function offeredSecrets(offered: readonly string[]): { token: string; pass: string | null } {
  const token = offered.find((p) => p.startsWith(TOKEN_PREFIX))?.slice(TOKEN_PREFIX.length) ?? '';
  const pass = offered.find((p) => p.startsWith(PASS_PREFIX))?.slice(PASS_PREFIX.length) ?? null;
  return { token, pass: pass && PASS_PATTERN.test(pass) ? pass : null };
}
