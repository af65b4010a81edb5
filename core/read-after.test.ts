import { describe, expect, it } from 'vitest';
import { laterLsn, parseLsn } from './read-after.ts';

describe('LSNs as PostgreSQL writes them', () => {
  it('orders by the high word first, then the low one, in hex', () => {
    expect(parseLsn('0/3000148')).toBe(0x3000148n);
    expect(parseLsn('1/0')! > parseLsn('0/FFFFFFFF')!).toBe(true);
    expect(parseLsn('a/B')).toBe((0xan << 32n) | 0xbn);
  });
  it('refuses what is not one', () => {
    for (const bad of ['', 'primary', '0/', '/1', '0/123456789', '1-2', '0x1/2', '1/2/3']) expect(parseLsn(bad), bad).toBeNull();
  });
  it('keeps the later of two, whichever side it is on; an unreadable one never wins', () => {
    expect(laterLsn('0/10', '0/9')).toBe('0/10');
    expect(laterLsn('0/9', '1/0')).toBe('1/0');
    expect(laterLsn(null, '0/1')).toBe('0/1');
    expect(laterLsn('0/1', 'junk')).toBe('0/1');
    expect(laterLsn(null, null)).toBeNull();
  });
});
