// `npm start` where there is a display: the browser is opened on a launch page only the user can read, never on the
// address with the token, so no process's command line or environment holds this launch's token (/proc/<pid>/cmdline
// is readable by every local user, /environ by the user's other processes and root, and children inherit it). A stand-in `xdg-open` on PATH records what it was given; Debian's
// Chromium then opens that file as the browser would, and lands on the app with a working session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let opened: string;

beforeAll(async () => {
  const bin = join(process.env.TMPDIR ?? '/tmp', `furrow-xdg-${process.pid}`);
  mkdirSync(bin, { recursive: true });
  opened = join(bin, 'opened');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${opened}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  ctx = await startDemoApp('furrow-launch-', { DISPLAY: ':97', FURROW_NO_BROWSER: '', PATH: `${bin}:${process.env.PATH}` });
}, 150_000);
afterAll(async () => {
  await ctx?.stop();
});

/** Every process's command line and environment this user can read, as text. */
function processTable(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    for (const f of ['cmdline', 'environ']) {
      try {
        out.push(readFileSync(`/proc/${pid}/${f}`, 'latin1'));
      } catch { /* gone, or not ours to read */ }
    }
  }
  return out;
}

describe('launching the app in the browser', () => {
  it('hands the browser a 0600 launch page, and the token is on no command line and in no environment', async () => {
    const token = new URLSearchParams(new URL(ctx.app.url).hash.slice(1)).get('token')!;
    expect(token.length).toBeGreaterThan(20);
    for (let i = 0; i < 100 && !statSync(opened, { throwIfNoEntry: false }); i++) await new Promise((r) => setTimeout(r, 100));
    const arg = readFileSync(opened, 'utf8').trim();
    expect(arg).toMatch(/^file:\/\//);
    expect(arg).not.toContain(token);
    const page = fileURLToPath(arg);
    expect(page.startsWith(join(ctx.dir, 'home'))).toBe(true);
    expect(statSync(page).mode & 0o777).toBe(0o600);
    expect(readFileSync(page, 'utf8')).toContain(token);
    const table = processTable();
    expect(table.length).toBeGreaterThan(10);
    expect(table.filter((t) => t.includes(token))).toEqual([]);
  });

  it("leaves the mirror's files to the user alone: FURROW_HOME 0700, nothing in it open to group or others", () => {
    const home = join(ctx.dir, 'home');
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const wide: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if ((statSync(path).mode & 0o077) !== 0) wide.push(`${path} ${(statSync(path).mode & 0o777).toString(8)}`);
        if (e.isDirectory()) walk(path);
      }
    };
    walk(home);
    expect(readdirSync(home)).toEqual(expect.arrayContaining(['mirror.db', 'mirror.db-wal', 'mirror.db-shm', 'credentials.json']));
    expect(wide).toEqual([]);
  });

  it('the launch page takes Chromium to the app, which connects with the token it carries', async () => {
    const arg = readFileSync(opened, 'utf8').trim();
    const { page, problems } = await openApp(ctx.browser, arg);
    await expect.poll(() => page.url(), { timeout: 15_000 }).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await waitOnline(page);
    // The token left the address bar (kept for this tab's reloads only).
    expect(page.url()).not.toContain('token');
    expect(await problems()).toEqual([]);
    await page.context().close();
  });
});
