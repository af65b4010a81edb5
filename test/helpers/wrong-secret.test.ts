import { describe, expect, it } from 'vitest';
import { wrongLastChar } from './wrong-secret.ts';

describe('wrongLastChar', () => {
  it('always differs from the secret, by its last character only, whatever that character is', () => {
    for (const secret of ['fk_abcx', 'fk_abcy', 'fk_abc1', 'x']) {
      const wrong = wrongLastChar(secret);
      expect(wrong).not.toBe(secret);
      expect(wrong.length).toBe(secret.length);
      expect(wrong.slice(0, -1)).toBe(secret.slice(0, -1));
    }
  });
});
