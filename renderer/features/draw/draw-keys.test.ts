import { describe, expect, it } from 'vitest';
import { drawKey, type KeyPress } from './draw-keys.ts';

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, shiftKey: false, ...mods });
/** On the map (no field, no control of its own), with three vertices clicked and the one following the pointer. */
const onMap = { inField: false, ownsEnter: false, ring: 4 };

describe('the keys of drawing a polygon', () => {
  it('finishes with Enter from three vertices, not before, and not when Enter is a button\'s', () => {
    expect(drawKey(press('Enter'), onMap)).toBe('finish');
    expect(drawKey(press('Enter'), { ...onMap, ring: 3 })).toBeNull();
    expect(drawKey(press('Enter'), { ...onMap, ownsEnter: true })).toBeNull();
  });

  it('cancels with Esc', () => {
    expect(drawKey(press('Escape'), onMap)).toBe('abort');
    expect(drawKey(press('Escape'), { ...onMap, ring: 0 })).toBe('abort');
  });

  it('takes the last vertex back with Backspace or Ctrl+Z (⌘Z), not with Ctrl+Shift+Z', () => {
    expect(drawKey(press('Backspace'), onMap)).toBe('undo');
    expect(drawKey(press('z', { ctrlKey: true }), onMap)).toBe('undo');
    expect(drawKey(press('Z', { ctrlKey: true }), onMap)).toBe('undo'); // Caps Lock on
    expect(drawKey(press('z', { metaKey: true }), onMap)).toBe('undo');
    expect(drawKey(press('Z', { ctrlKey: true, shiftKey: true }), onMap)).toBeNull();
    expect(drawKey(press('z'), onMap)).toBeNull();
  });

  it('leaves every key typed in a form field to the field', () => {
    for (const k of [press('Enter'), press('Escape'), press('Backspace'), press('z', { ctrlKey: true })]) {
      expect(drawKey(k, { inField: true, ownsEnter: true, ring: 4 }), k.key).toBeNull();
    }
  });
});
