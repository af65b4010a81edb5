import { describe, expect, it } from 'vitest';
import { DEFAULT_KEYS, SHORTCUT_IDS, keyName, keyProblem, matchesShortcut, readKeymap, setKeymap, useKeymap, type Keymap } from './keymap.ts';
import { currentKeys, SHORTCUTS } from './features/help/shortcuts.ts';

const press = (key: string, more: { ctrlKey?: boolean } = {}) => ({ key, ctrlKey: false, metaKey: false, altKey: false, ...more });

describe('the single-key shortcuts', () => {
  it('refuses a key that is not one printable character, or is another shortcut’s', () => {
    expect(keyProblem(DEFAULT_KEYS, 'draw', 'x')).toBeNull();
    expect(keyProblem(DEFAULT_KEYS, 'draw', 'D')).toBeNull(); // its own key, in either case
    expect(keyProblem(DEFAULT_KEYS, 'draw', '7')).toBeNull();
    expect(keyProblem(DEFAULT_KEYS, 'draw', 'p')).toBe('P is already the key of Drop hectare point.');
    expect(keyProblem(DEFAULT_KEYS, 'draw', '')).toBe('One letter, digit or symbol.');
    expect(keyProblem(DEFAULT_KEYS, 'draw', 'xy')).toBe('One letter, digit or symbol.');
    expect(keyProblem(DEFAULT_KEYS, 'draw', ' ')).toBe('One letter, digit or symbol.');
  });

  it('reads back what was stored, and only what is still valid', () => {
    expect(readKeymap(null)).toEqual({ enabled: true, keys: DEFAULT_KEYS });
    expect(readKeymap({ enabled: false, keys: { draw: 'X' } })).toEqual({ enabled: false, keys: { ...DEFAULT_KEYS, draw: 'x' } });
    // A key taken twice, or not a key: the defaults.
    expect(readKeymap({ keys: { draw: 'p' } }).keys).toEqual(DEFAULT_KEYS);
    expect(readKeymap({ keys: { draw: 'Enter' } }).keys.draw).toBe('d');
    // A stored key that a default put back would collide with: every key back to its default.
    expect(readKeymap({ keys: { draw: 'Enter', point: 'd' } }).keys).toEqual(DEFAULT_KEYS);
    expect(readKeymap('nonsense').enabled).toBe(true);
  });

  it('acts only on its key, without Ctrl, Alt or Meta, when switched on and no panel is open', () => {
    const map: Keymap = { enabled: true, keys: { ...DEFAULT_KEYS } };
    expect(matchesShortcut(press('d'), 'draw', map, false)).toBe(true);
    expect(matchesShortcut(press('D'), 'draw', map, false)).toBe(true);
    expect(matchesShortcut(press('d', { ctrlKey: true }), 'draw', map, false)).toBe(false);
    expect(matchesShortcut(press('?'), 'help', map, false)).toBe(true);
    expect(matchesShortcut(press('Delete'), 'draw', map, false)).toBe(false);
    const remapped = { enabled: true, keys: { ...DEFAULT_KEYS, draw: 'x' } };
    expect(matchesShortcut(press('d'), 'draw', remapped, false)).toBe(false);
    expect(matchesShortcut(press('x'), 'draw', remapped, false)).toBe(true);
    expect(matchesShortcut(press('x'), 'draw', remapped, true)).toBe(false);
    expect(matchesShortcut(press('x'), 'draw', { ...remapped, enabled: false }, false)).toBe(false);
  });

  it('names the key for aria-keyshortcuts and tooltips, none when single keys are off', () => {
    setKeymap({ enabled: true, keys: { ...DEFAULT_KEYS, draw: 'x' } });
    expect(useKeymap.getState().keys.draw).toBe('x');
    expect(keyName('draw')).toBe('X');
    expect(keyName('help')).toBe('?');
    setKeymap({ enabled: false });
    expect(keyName('draw')).toBeNull();
    setKeymap({ enabled: true, keys: { ...DEFAULT_KEYS } });
  });

  it('the help lists each key as the user has it', () => {
    const item = (id: string) => SHORTCUTS.flatMap((g) => g.items).find((i) => i.id === id)!;
    const on = { enabled: true, keys: { ...DEFAULT_KEYS, search: 'k', draw: 'x' } };
    expect(currentKeys(item('search'), on)).toEqual(['Control+F', 'K']);
    expect(currentKeys(item('draw'), on)).toEqual(['X']);
    expect(currentKeys(item('help'), on)).toEqual(['Shift+?', 'F1']);
    const off = { ...on, enabled: false };
    expect(currentKeys(item('search'), off)).toEqual(['Control+F']);
    expect(currentKeys(item('draw'), off)).toEqual([]);
    expect(currentKeys(item('help'), off)).toEqual(['F1']);
    expect(SHORTCUT_IDS.every((id) => item(id))).toBe(true);
  });
});
