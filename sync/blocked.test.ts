// Which clock a refused token is put down to (sync/blocked.ts clockNote), from the service's Date, this computer's
// clock when the answer came, and the token's own times.
import { describe, expect, it } from 'vitest';
import { blockedBy, clockNote } from './blocked.ts';

const at = Date.parse('2026-11-28T12:00:00Z');
const date = new Date(at).toUTCString();
const s = (ms: number) => Math.floor(ms / 1000);

describe('clockNote', () => {
  it('names an issuer whose clock runs ahead of the service', () => {
    expect(clockNote({ headers: { date }, receivedAt: at, token: { iat: s(at) + 600, exp: s(at) + 600 + 3 * 3600 } }))
      .toBe(`it was issued 10 min ahead of the service's clock (${date}): the clock of what issued it runs that far ahead (the service allows 60 s)`);
  });

  it("names this computer's clock behind the service's when the token expired only by the service's", () => {
    expect(clockNote({ headers: { date }, receivedAt: at - 10 * 60_000, token: { iat: s(at) - 3 * 3600 - 300, exp: s(at) - 300 } }))
      .toBe(`by the service's clock (${date}) it expired 5 min ago; this computer's clock is 10 min behind the service's and still counts it valid`);
  });

  it('says nothing when the clocks agree (the token was revoked, or expired for everyone), or when there is no Date or no token', () => {
    expect(clockNote({ headers: { date }, receivedAt: at + 20_000, token: { iat: s(at) + 30, exp: s(at) + 3600 } })).toBeNull();
    expect(clockNote({ headers: { date }, receivedAt: at, token: { iat: s(at) - 4 * 3600, exp: s(at) - 3600 } })).toBeNull();
    expect(clockNote({ headers: {}, receivedAt: at, token: { iat: s(at) + 600, exp: null } })).toBeNull();
    expect(clockNote({ headers: { date }, receivedAt: at })).toBeNull();
  });

  it('blocks with clock_skew when the clocks explain an Invalid token, invalid_token otherwise', () => {
    const body = { code: 'invalid_token', message: 'Invalid token' };
    const base = { status: 401, body, headers: { date }, retryAfterMs: null, sentBytes: 0, receivedAt: at };
    expect(blockedBy({ ...base, token: { iat: s(at) + 600, exp: null } })).toMatchObject({ code: 'clock_skew' });
    expect(blockedBy({ ...base, token: { iat: s(at), exp: s(at) + 3600 } })).toMatchObject({ code: 'invalid_token', reason: 'Invalid token (no fresh one could be had)' });
  });
});
