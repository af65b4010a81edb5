import { describe, expect, it } from 'vitest';
import { displayText } from './display-text.ts';

describe('displayText', () => {
  it('keeps a plain name as it is', () => {
    expect(displayText('Agro Consult Sur')).toBe('Agro Consult Sur');
    expect(displayText('grower@finca.example')).toBe('grower@finca.example');
    expect(displayText('Cooperativa Agrícola Nuestra Señora')).toBe('Cooperativa Agrícola Nuestra Señora');
  });
  it('drops controls, bidirectional overrides and line breaks, folding the white space', () => {
    expect(displayText('\u202egro@x\u001b[31m\u0000\r\nFAKE LOG LINE')).toBe('gro@x [31m FAKE LOG LINE');
    expect(displayText('a\u2066b\u2069c\u2028d')).toBe('a b c d');
  });
  it('cuts a long text to its maximum, in characters', () => {
    expect(displayText('x'.repeat(5_000_000))).toHaveLength(200);
    expect(displayText('é'.repeat(10), 5)).toBe('éééé…');
  });
});
