import { describe, expect, it } from 'vitest';
import { hectares } from './states.ts';

describe('hectares', () => {
  it('shows two decimals, and enough digits for a small area never to read 0.00', () => {
    expect(hectares(12.345)).toBe('12.35 ha');
    expect(hectares(1234.5)).toBe('1,234.50 ha');
    expect(hectares(0)).toBe('0.00 ha');
    expect(hectares(0.001)).toBe('0.001 ha');
    expect(hectares(0.0001)).toBe('0.0001 ha');
    expect(hectares(0.000000008)).toBe('under 1 m²');
    expect(hectares(0.0537)).toBe('0.054 ha');
    expect(hectares(0.25)).toBe('0.25 ha');
  });
});
