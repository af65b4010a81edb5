// Browser mode's reconnect pass: what lets a tab left open reconnect after the app restarts, without a new secret in
// its address. The launch token (the printed address's fragment) is good for one launch only; a tab it let in is
// handed a pass over the open WebSocket, one per connection, kept in that tab's sessionStorage. After a restart the
// tab offers the pass instead: the host (backend/tab-passes.ts) keeps only its digest, takes each pass once and hands
// a fresh one, good until the first one's lapse (PASS_TTL_MS after the tab came in with the printed address). A tab
// never let in by a launch token has none.
//
// While the app is stopped, anything may listen on its port. So the tab offers its pass, and reloads to get back in,
// only once the server at the port has proved it is the app: with the pass comes a proof key, an HMAC of the pass's
// digest under a secret only the host holds; the tab asks PROOF_PATH for that key's HMAC of a fresh nonce (naming the
// pass by its digest, nothing secret) and compares. An impostor on the port, without the host's secret, cannot answer.
// Shared by both ends (backend/browser-server.ts, renderer/ws-port.ts, renderer/backend.ts): no I/O here.

/** The subprotocol prefixes a page offers beside `furrow.v1`: this launch's token, or a pass from an earlier one. */
export const TOKEN_PREFIX = 'furrow-token.';
export const PASS_PREFIX = 'furrow-pass.';

/** A pass unused this long is forgotten: a tab left a week is asked for the printed address again. */
export const PASS_TTL_MS = 7 * 24 * 3_600_000;

/** The frame the host sends first on an accepted WebSocket: never an rpc message (rpc has no `furrowPass`). */
export interface PassFrame { furrowPass: string; proofKey: string }

/** Where the tab asks the server at the port to prove it is the app: `?claim=<digest hex>&nonce=<hex>`. */
export const PROOF_PATH = '/furrow-proof';
export const DIGEST_PATTERN = /^[0-9a-f]{64}$/;
export const NONCE_PATTERN = /^[0-9a-f]{32,64}$/;

/** A pass's key material as both ends write it: 32 bytes, base64url. */
export const KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes, base64url: a subprotocol token as RFC 6455 allows it. */
export const PASS_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The pass and its proof key a frame carries, or null when the frame is anything else (an rpc message). */
export function passOf(frame: unknown): PassFrame | null {
  if (typeof frame !== 'object' || frame === null) return null;
  const { furrowPass: p, proofKey: k } = frame as Partial<PassFrame>;
  return typeof p === 'string' && PASS_PATTERN.test(p) && typeof k === 'string' && KEY_PATTERN.test(k) ? { furrowPass: p, proofKey: k } : null;
}

/** The secrets a page offered, read from its Sec-WebSocket-Protocol list. */
export function offeredSecrets(offered: readonly string[]): { token: string; pass: string | null } {
  const token = offered.find((p) => p.startsWith(TOKEN_PREFIX))?.slice(TOKEN_PREFIX.length) ?? '';
  const pass = offered.find((p) => p.startsWith(PASS_PREFIX))?.slice(PASS_PREFIX.length) ?? null;
  return { token, pass: pass && PASS_PATTERN.test(pass) ? pass : null };
}
