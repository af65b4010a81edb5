import { describe, expect, it } from 'vitest';
import { keyLabel } from './shortcuts.ts';

describe('keyLabel', () => {
  it('writes keys as keyboards print them', () => {
    expect(keyLabel('Control+Shift+Z')).toBe('Ctrl+Shift+Z');
    expect(keyLabel('Shift+?')).toBe('?');
    expect(keyLabel('Escape')).toBe('Esc');
    expect(keyLabel('D')).toBe('D');
    expect(keyLabel('ArrowDown')).toBe('↓');
    expect(keyLabel(']')).toBe(']');
  });
});
