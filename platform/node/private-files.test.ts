// Owner-only folders and files on real files, under a permissive umask (set here, restored after): created private,
// narrowed when found wider and the user's own, left alone (a folder, with a warning) or refused (a file) when another
// user's; and the umask the CLI and the mirror host run with, with the user's own kept for the files they name.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir, narrowFile, privateFile, privateUmask, userFileMode } from './private-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let umask: number;
beforeEach(() => { umask = process.umask(0o000); });
afterEach(() => { process.umask(umask); });

/**
 * A path another user owns, open to others. As root: one of ours given to nobody. Otherwise: the root folder, or a
 * root file (every chmod of them fails anyway, were the check missing).
 */
function foreign(kind: 'dir' | 'file'): string {
  if (isRoot) {
    const path = join(dir, `foreign-${kind}`);
    if (kind === 'dir') mkdirSync(path, { mode: 0o755 });
    else writeFileSync(path, 'planted', { mode: 0o644 });
    chownSync(path, NOBODY, NOBODY);
    return path;
  }
  return kind === 'dir' ? '/' : '/etc/passwd';
}

describe('ensurePrivateDir', () => {
  it('creates a folder 0700, its missing parents too', () => {
    const home = join(dir, 'new', 'furrow');
    ensurePrivateDir(home);
    expect(mode(home)).toBe(0o700);
    expect(mode(join(dir, 'new'))).toBe(0o700);
  });

  it("narrows the user's own folder found wider to 0700, its contents untouched", () => {
    const home = join(dir, 'wide');
    mkdirSync(home, { mode: 0o755 });
    writeFileSync(join(home, 'f'), 'x', { mode: 0o644 });
    expect(mode(home)).toBe(0o755);
    ensurePrivateDir(home);
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, 'f'))).toBe(0o644);
  });

  it('never narrows a shared folder (sticky, as /tmp, or writable by everyone), even its own: it warns instead', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (const [name, m] of [['sticky', 0o1777], ['open', 0o777]] as const) {
        const path = join(dir, name);
        mkdirSync(path);
        chmodSync(path, m);
        ensurePrivateDir(path);
        expect(statSync(path).mode & 0o7777).toBe(m);
      }
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringContaining(`${join(dir, 'sticky')} is a folder shared by every user (mode 1777)`),
      expect.stringContaining(`${join(dir, 'open')} is a folder shared by every user (mode 777)`),
    ]);
  });

  it("leaves another user's folder as it is, warning once that it is not private", async () => {
    const path = foreign('dir');
    const before = mode(path);
    expect(before & 0o077).not.toBe(0);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      ensurePrivateDir(path);
      ensurePrivateDir(path);
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(mode(path)).toBe(before);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'FURROW_NOT_PRIVATE' });
    expect(warnings[0]!.message).toContain(`${path} belongs to another user`);
  });
});

describe('privateFile', () => {
  it('creates a missing file empty and 0600', () => {
    const file = join(dir, 'created');
    privateFile(file);
    expect(mode(file)).toBe(0o600);
    expect(statSync(file).size).toBe(0);
  });

  it("narrows the user's own file found wider, keeping its content; a missing one is nothing to narrow", () => {
    const file = join(dir, 'wide-file');
    writeFileSync(file, 'content', { mode: 0o664 });
    privateFile(file);
    expect(mode(file)).toBe(0o600);
    expect(statSync(file).size).toBe(7);
    narrowFile(join(dir, 'missing'));
    expect(() => statSync(join(dir, 'missing'))).toThrow(/ENOENT/);
  });

  it("refuses another user's file open to others, leaving it as it is", () => {
    const file = foreign('file');
    const before = mode(file);
    expect(() => privateFile(file)).toThrow(`${file} belongs to another user`);
    expect(mode(file)).toBe(before);
  });
});

describe('privateUmask', () => {
  it("makes what the process creates owner-only, and keeps the user's umask for the files they name", () => {
    process.umask(0o027);
    expect(userFileMode()).toBeUndefined();
    privateUmask();
    const file = join(dir, 'after-umask');
    closeSync(openSync(file, 'w', 0o666));
    mkdirSync(join(dir, 'dir-after-umask'));
    expect(mode(file)).toBe(0o600);
    expect(mode(join(dir, 'dir-after-umask'))).toBe(0o700);
    expect(userFileMode()).toBe(0o640);
    // Called again (a second entry point), the user's umask is still the one remembered.
    privateUmask();
    expect(userFileMode()).toBe(0o640);
  });
});

describe('a folder of FURROW_HOME made by two processes at once', () => {
  // Two hosts on one FURROW_HOME (an Electron app and a browser-mode host, a CLI beside them) may both make its
  // folders (imports/, layers/, exports/) in the same instant: neither may fail because the other made it first.
  it('is made by both without an error, private', async () => {
    const { spawn } = await import('node:child_process');
    const root = join(dir, 'race');
    mkdirSync(root);
    const module = new URL('./private-files.ts', import.meta.url).href;
    const at = Date.now() + 1500;
    // Each process waits for the same instant, then makes the same 200 nested folders, in the same order.
    const script = `
      const { ensurePrivateDir } = await import(${JSON.stringify(module)});
      while (Date.now() < ${at});
      for (let i = 0; i < 200; i++) ensurePrivateDir(${JSON.stringify(root)} + '/home-' + i + '/layers');
      process.stdout.write('ok');`;
    const run = () => new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      c.stderr.on('data', (d: Buffer) => { out += d.toString(); });
      c.once('exit', (code) => resolve({ code, out }));
    });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a).toEqual({ code: 0, out: 'ok' });
    expect(b).toEqual({ code: 0, out: 'ok' });
    for (const i of [0, 99, 199]) {
      expect(mode(join(root, `home-${i}`))).toBe(0o700);
      expect(mode(join(root, `home-${i}`, 'layers'))).toBe(0o700);
    }
  }, 60_000);
});
