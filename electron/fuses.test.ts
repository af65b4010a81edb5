// The packages' Electron fuses (electron-builder.yml electronFuses), read as text: packaging cannot run here (no
// Electron binary), so this checks that the configuration asks for each fuse the right way, and keeps the app in a
// checked app.asar with better-sqlite3 unpacked. The file's few top-level lines are read by hand, strictly: anything
// this reader does not expect (a flow mapping, a duplicate key, a value that is not true or false) fails the test
// rather than being misread, so no YAML parser is needed.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const CONFIG = readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8');

/** What each fuse must be, and why (docs/app.md, Electron). */
const FUSES: Record<string, boolean> = {
  runAsNode: false, // ELECTRON_RUN_AS_NODE: the signed binary as a plain Node
  enableNodeOptionsEnvironmentVariable: false, // NODE_OPTIONS=--require …
  enableNodeCliInspectArguments: false, // --inspect into the main process
  enableEmbeddedAsarIntegrityValidation: true, // app.asar checked against the hash in the binary
  onlyLoadAppFromAsar: true, // the app only from that archive
  enableCookieEncryption: true,
  loadBrowserProcessSpecificV8Snapshot: false, // Electron's default
  grantFileProtocolExtraPrivileges: false, // the page is app://furrow/, never file://
};

/** A line without its comment (values here are plain words: no quoted `#`). */
const bare = (line: string) => line.replace(/(^|\s)#.*$/, '').trimEnd();

/** The top-level keys, each with its inline value and its indented lines; a key twice throws. */
function topLevel(text: string): Map<string, { value: string; lines: string[] }> {
  const keys = new Map<string, { value: string; lines: string[] }>();
  let current: { value: string; lines: string[] } | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = bare(raw);
    if (!line.trim()) continue;
    if (/^\s/.test(line)) {
      if (!current) throw new Error(`an indented line before any key: ${raw}`);
      current.lines.push(line);
      continue;
    }
    const [, key, value = ''] = /^([A-Za-z][\w-]*):(?:\s+(.*))?$/.exec(line) ?? [];
    if (!key) throw new Error(`not a top-level key: ${raw}`);
    if (keys.has(key)) throw new Error(`${key} twice`);
    current = { value, lines: [] };
    keys.set(key, current);
  }
  return keys;
}

/** electronFuses as a block mapping of two-space-indented `name: true|false` lines; anything else throws. */
function fuses(text: string): Record<string, boolean> {
  const block = topLevel(text).get('electronFuses');
  if (!block) throw new Error('no electronFuses');
  if (block.value) throw new Error(`electronFuses must be a block mapping, not: ${block.value}`);
  const out: Record<string, boolean> = {};
  for (const line of block.lines) {
    const [, name, value] = /^ {2}([A-Za-z]\w*): (true|false)$/.exec(line) ?? [];
    if (!name) throw new Error(`not a fuse: ${line}`);
    if (name in out) throw new Error(`${name} twice`);
    out[name] = value === 'true';
  }
  return out;
}

describe('electron-builder.yml', () => {
  it('sets every fuse, each the right way, and no other', () => {
    expect(fuses(CONFIG)).toEqual(FUSES);
  });

  it('packs the app in app.asar, with better-sqlite3 unpacked', () => {
    const keys = topLevel(CONFIG);
    expect(keys.get('asar')?.value).toBe('true');
    const unpack = keys.get('asarUnpack');
    expect(unpack?.value).toBe('');
    expect(unpack?.lines.map((l) => l.trim())).toContain('- node_modules/better-sqlite3/**');
    // The host that main forks from inside the archive is packaged (and the bridge is not).
    expect(keys.get('files')?.lines.map((l) => l.trim())).toEqual(expect.arrayContaining(['- dist/*.mjs', '- "!dist/host-bridge.mjs"']));
  });

  it('the reader fails on a fuse missing, flipped, twice, or written another way', () => {
    const flip = (name: string, to: string) => CONFIG.replace(new RegExp(`^( {2}${name}): \\w+`, 'm'), `$1: ${to}`);
    expect(fuses(flip('runAsNode', 'true'))).not.toEqual(FUSES);
    expect(fuses(flip('onlyLoadAppFromAsar', 'false'))).not.toEqual(FUSES);
    expect(fuses(CONFIG.replace(/^ {2}grantFileProtocolExtraPrivileges: \w+\n/m, ''))).not.toEqual(FUSES);
    expect(() => fuses(flip('runAsNode', 'no'))).toThrow(/not a fuse/);
    expect(() => fuses(flip('runAsNode', '"false"'))).toThrow(/not a fuse/);
    expect(() => fuses(`${CONFIG}\nelectronFuses:\n  runAsNode: true\n`)).toThrow(/twice/);
    expect(() => fuses(CONFIG.replace(/^ {2}runAsNode: false$/m, '  runAsNode: false\n  runAsNode: true'))).toThrow(/twice/);
    expect(() => fuses('electronFuses: { runAsNode: false }\n')).toThrow(/block mapping/);
    expect(() => fuses('electronFuses:\n    runAsNode: false\n')).toThrow(/not a fuse/);
    expect(() => fuses('appId: x\n')).toThrow(/no electronFuses/);
  });
});
