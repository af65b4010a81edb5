import { describe, expect, it } from 'vitest';
import { pageWords } from './page-words.ts';

describe("the parcel list's page in words", () => {
  it('counts a farm that fits one page, and places a page among thousands', () => {
    expect(pageWords(0, 17, 17)).toBe('17 parcels');
    expect(pageWords(0, 1, 1)).toBe('1 parcel');
    expect(pageWords(0, 50, 3000)).toBe('1–50 of 3,000');
    expect(pageWords(2950, 50, 3000)).toBe('2,951–3,000 of 3,000');
    expect(pageWords(50, 3, 53)).toBe('51–53 of 53');
  });
});
