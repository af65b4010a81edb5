// The electronegativity gate (scripts/electronegativity.mjs) run for real: the scanner over electron/ with the
// reviewed allowlist passes, and over a window with Node in its renderer it fails — the scanner alone would exit 0.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const GATE = join(ROOT, 'scripts/electronegativity.mjs');
const runGate = (...args: string[]) => spawnSync(process.execPath, [GATE, ...args], { cwd: ROOT, encoding: 'utf8' });
const { judge } = await import('../scripts/electronegativity.mjs' as string) as {
  judge(findings: { check: string; file: string }[], allowlist: { check: string; file: string; reason: string }[]): { unreviewed: unknown[]; stale: unknown[] };
};

describe('electronegativity gate', () => {
  const bad = mkdtempSync(join(tmpdir(), 'furrow-bad-electron-'));
  afterAll(() => rmSync(bad, { recursive: true, force: true }));

  it('passes on electron/ with its reviewed allowlist', () => {
    const r = runGate();
    expect(r.stdout).not.toMatch(/NOT REVIEWED|STALE/);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('fails on a window that gives its page Node', () => {
    writeFileSync(join(bad, 'main.js'), [
      "const { app, BrowserWindow } = require('electron');",
      'app.whenReady().then(() => {',
      '  const win = new BrowserWindow({ webPreferences: { nodeIntegration: true } });',
      "  win.loadURL('https://example.com/');",
      '});',
    ].join('\n'));
    // The real allowlist: what it excuses in main.ts must not excuse another file.
    const r = runGate(bad);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/NOT REVIEWED NODE_INTEGRATION_JS_CHECK main\.js/);
    expect(r.stdout).toMatch(/NOT REVIEWED PERMISSION_REQUEST_HANDLER_GLOBAL_CHECK/);
  });

  it('matches entries by check and file, flags stale ones and wants a reason', () => {
    const findings = [{ check: 'OPEN_EXTERNAL_JS_CHECK', file: 'main.ts' }, { check: 'OPEN_EXTERNAL_JS_CHECK', file: 'other.ts' }];
    const list = [{ check: 'OPEN_EXTERNAL_JS_CHECK', file: 'main.ts', reason: 'reviewed' }, { check: 'CSP_GLOBAL_CHECK', file: 'main.ts', reason: 'reviewed' }];
    const { unreviewed, stale } = judge(findings, list);
    expect(unreviewed).toEqual([findings[1]]);
    expect(stale).toEqual([list[1]]);
    expect(() => judge(findings, [{ check: 'OPEN_EXTERNAL_JS_CHECK', file: 'main.ts', reason: ' ' }])).toThrow(/reason/);
  });
});
