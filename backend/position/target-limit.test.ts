// The limit on new receivers a page has the host try (target-limit.ts), on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { ApiErrorCode } from '../../core/api-codes.ts';
import type { PositionSource } from '../../core/api-position.ts';
import { NEW_TARGETS_PER_MINUTE, TargetLimit, targetOf } from './target-limit.ts';

const tcp = (port: number, host = '192.168.1.7'): PositionSource => ({ kind: 'tcp', host, port });

describe('TargetLimit', () => {
  it(`admits ${NEW_TARGETS_PER_MINUTE} new targets a minute, any tried before, and more as the minute passes`, () => {
    let now = 1_000_000;
    const limit = new TargetLimit(() => now);
    for (let p = 1; p <= NEW_TARGETS_PER_MINUTE; p++) { limit.admit(tcp(p)); now += 1000; }
    let refusal: unknown;
    try { limit.admit(tcp(99)); } catch (err) { refusal = err; }
    expect(refusal).toMatchObject({ code: ApiErrorCode.tooManyTargets, details: { retryAfterS: 55 } });
    expect((refusal as Error).message).toMatch(/^The app has tried 5 new receivers within a minute, as many as it will: try this one in 55 s, or one tried before\. \(The limit keeps a web page from using the app to probe your network\.\)$/);
    // Tried before: free, as gpsd on the same port is (the same target), and a serial port or the system's location.
    limit.admit(tcp(3));
    limit.admit({ kind: 'gpsd', host: '192.168.1.7', port: 3 });
    limit.admit({ kind: 'system' });
    limit.admit({ kind: 'serial', port: 'ab'.repeat(8), baud: 9600 });
    expect(() => limit.admit({ kind: 'udp', port: 10110 })).toThrow(expect.objectContaining({ code: ApiErrorCode.tooManyTargets }));
    // The first try a minute old: one more.
    now = 1_000_000 + 60_000;
    limit.admit(tcp(99));
    expect(() => limit.admit(tcp(100))).toThrow(expect.objectContaining({ code: ApiErrorCode.tooManyTargets }));
  });

  it('takes the kept source as known, and tells targets apart by host (any case) and port', () => {
    const limit = new TargetLimit(() => 0, 1);
    limit.know(tcp(10110, 'Receiver.local'));
    limit.admit(tcp(10110, 'receiver.local'));
    expect(targetOf(tcp(1, 'A'))).toBe(targetOf({ kind: 'gpsd', host: 'a', port: 1 }));
    expect(targetOf({ kind: 'udp', port: 1 })).not.toBe(targetOf(tcp(1, 'a')));
    limit.admit({ kind: 'udp', port: 5000 });
    expect(() => limit.admit(tcp(10111, 'receiver.local'))).toThrow(expect.objectContaining({ code: ApiErrorCode.tooManyTargets }));
  });
});
