// `npm start` ended the ways a session ends it, and nothing left behind: the launcher killed with SIGKILL (no handler
// of its own runs) takes the embedded parcel service with it — the service watches its IPC channel to the launcher,
// service/server.ts — and the mirror host (its own channel); the terminal closed (SIGHUP to the launcher's whole
// process group, as the kernel and the shell send it) stops the app as Ctrl+C does: the launch page removed, the host
// closing the mirror cleanly (no WAL left), the service stopped, the launcher's exit 0.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, ROOT } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';

const dirs: string[] = [];
afterAll(() => {
  // Whatever a failed run left: the processes started with this file's folders in their environment, by their ids.
  for (const dir of dirs) {
    for (const pid of ownProcesses(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* gone meanwhile */ }
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Processes whose environment names `dir` (the launcher's children inherit DATA_DIR and FURROW_HOME). */
function ownProcesses(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(`DATA_DIR=${join(dir, 'data')}\0`)) pids.push(Number(name));
    } catch { /* gone, or not ours */ }
  }
  return pids.filter((pid) => pid !== process.pid);
}

/** Whether something accepts connections on 127.0.0.1:port. */
const listening = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Launched { child: ChildProcess; dir: string; servicePort: number; appPort: number; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; out(): string }

/**
 * The launcher as `npm start` runs it, on the embedded default (its service on a free port), in a process group of
 * its own (a terminal's job): the browser "opened" by a stand-in xdg-open, so that the launch page is written.
 */
async function launch(): Promise<Launched> {
  await ensureRenderer();
  const dir = mkdtempSync(join(tmpdir(), 'furrow-stop-'));
  dirs.push(dir);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const [servicePort, appPort] = (await freePorts(2)) as [number, number];
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/start.ts'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    env: {
      ...process.env, LOG_LEVEL: 'warn', DATA_DIR: join(dir, 'data'), FURROW_HOME: join(dir, 'home'), PORT: String(servicePort), HOST: '127.0.0.1',
      FURROW_APP_PORT: String(appPort), FURROW_DEMO_ACCOUNT: '0', DISPLAY: ':97', FURROW_NO_BROWSER: '', FURROW_NO_ELECTRON: '1', PATH: `${bin}:${process.env.PATH}`,
    },
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  await until(`the app printing its address\n${out}`, () => /Open Furrow at /.test(out) || child.exitCode !== null, 120_000);
  expect(child.exitCode, out).toBeNull();
  await until('the launch page', () => existsSync(join(dir, 'home', `open-${appPort}.html`)), 10_000);
  expect([await listening(servicePort), await listening(appPort)]).toEqual([true, true]);
  return { child, dir, servicePort, appPort, exited, out: () => out };
}

describe('stopping the app', () => {
  it('kill -9 of the launcher: the embedded service and the mirror host stop within seconds, nothing left running', async () => {
    const app = await launch();
    expect(ownProcesses(app.dir).length).toBeGreaterThanOrEqual(3); // the launcher, its host and its service
    app.child.kill('SIGKILL');
    expect(await app.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await until('the service and the host to stop listening', async () => !(await listening(app.servicePort)) && !(await listening(app.appPort)), 5_000);
    await until('every process of the launch to end', () => ownProcesses(app.dir).length === 0, 5_000);
  }, 180_000);

  it('the terminal closed (SIGHUP to the whole group): stopped as Ctrl+C stops it, the launch page removed, the mirror closed cleanly', async () => {
    const app = await launch();
    const home = join(app.dir, 'home');
    expect(existsSync(join(home, 'mirror.db-wal'))).toBe(true); // open
    process.kill(-app.child.pid!, 'SIGHUP');
    expect(await app.exited, app.out()).toEqual({ code: 0, signal: null });
    expect(existsSync(join(home, `open-${app.appPort}.html`))).toBe(false);
    await until('the service and the host to stop listening', async () => !(await listening(app.servicePort)) && !(await listening(app.appPort)), 5_000);
    await until('every process of the launch to end', () => ownProcesses(app.dir).length === 0, 5_000);
    // The host closed the mirror (its last connection: SQLite folds the WAL in and removes it), not killed mid-way.
    expect(existsSync(join(home, 'mirror.db'))).toBe(true);
    expect(existsSync(join(home, 'mirror.db-wal'))).toBe(false);
  }, 180_000);
});
