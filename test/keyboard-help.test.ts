// The keyboard help lists every key a control announces: each aria-keyshortcuts in the renderer's components is in
// renderer/features/help/shortcuts.ts (read here, in Node: the renderer's own tests may not touch files).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SHORTCUTS } from '../renderer/features/help/shortcuts.ts';
import { SHORTCUT_IDS } from '../renderer/keymap.ts';

const RENDERER = join(import.meta.dirname, '../renderer');
const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => {
  const p = join(dir, f);
  return statSync(p).isDirectory() ? files(p) : p.endsWith('.tsx') ? [p] : [];
});

describe('the keyboard help', () => {
  it('lists every key a control announces', () => {
    const listed = new Set(SHORTCUTS.flatMap((g) => g.items.flatMap((i) => i.keys.split(' '))));
    const sources = files(RENDERER).map((f) => readFileSync(f, 'utf8'));
    const announced = new Set(sources.flatMap((s) => [...s.matchAll(/aria-keyshortcuts="([^"]+)"/g)].flatMap((m) => m[1]!.split(' '))));
    expect(announced.size).toBeGreaterThan(4);
    expect([...announced].filter((k) => !listed.has(k))).toEqual([]);
    // The single keys the user may remap (keymap.ts) are announced by their id: each one is in the help too.
    const ids = new Set(SHORTCUTS.flatMap((g) => g.items.flatMap((i) => (i.id ? [i.id] : []))));
    const used = new Set(sources.flatMap((s) => [...s.matchAll(/useKeyName\('(\w+)'\)/g)].map((m) => m[1]!)));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((id) => !ids.has(id as never))).toEqual([]);
    expect(SHORTCUT_IDS.filter((id) => !ids.has(id))).toEqual([]);
  });
});
