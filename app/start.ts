// `npm start`: the app. With no configuration it runs the embedded default — the local parcel service with its
// demo organization (its address and credentials printed as `npm run service -- demo --serve` prints them), the
// demo account connected into the mirror under the app's home — then the mirror host with browser mode, and shows
// the app: in Electron's window when its binary is installed, else in the browser, at the address printed.
//
// FURROW_SERVICE set: no embedded service. With FURROW_ACCOUNT and FURROW_API_KEY (the organization's key, kept in
// the environment and never written), or FURROW_TOKEN (an account_access token), that account is connected if it is
// not yet; the app also shows the accounts connected before (the CLI's `connect`). Ports: PORT (the service, 8080), FURROW_APP_PORT (browser mode, any free one); data: DATA_DIR (the
// service, ./data) and FURROW_HOME (the mirror). FURROW_NO_BROWSER=1 never opens a browser, nor Electron's window.
// FURROW_DEMO_ACCOUNT=0 leaves the embedded demo's account unconnected (the app's first run: its Connect form).
// FURROW_NO_ELECTRON=1 opens the browser where Electron's window would open.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { configFromEnv } from '../service/config.ts';
import { runDemo } from '../service/demo.ts';
import { furrowHome } from '../backend/home.ts';
import { launchHost, type Host } from '../backend/launch.ts';
import { ensureRenderer, ROOT } from './renderer-build.ts';
import { portPreferring } from '../platform/node/free-port.ts';
import { openInBrowser } from './open-browser.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

interface ServiceChoice {
  url: string;
  /** The account to connect (when not yet) and show first. */
  account?: string;
  apiKey?: string;
  token?: string;
  /** The embedded service's process. */
  child?: ChildProcess;
}

function configuredService(env: NodeJS.ProcessEnv): ServiceChoice {
  return { url: env.FURROW_SERVICE!.replace(/\/+$/, ''), account: env.FURROW_ACCOUNT || undefined, apiKey: env.FURROW_API_KEY || undefined, token: env.FURROW_TOKEN || undefined };
}

/** The embedded service: the demo loaded here (its banner printed), then `serve` in a process of its own. */
async function embeddedService(): Promise<ServiceChoice> {
  const config = configFromEnv();
  const demo = await runDemo(config);
  process.stderr.write(`${demo.banner}\n`);
  const { ensureBuilt } = await import('../scripts/build.mjs');
  const entry = fileURLToPath(await ensureBuilt('service')); // as `npm run service` runs it
  // With an IPC channel, used for nothing but its end: the service stops when this process is gone, however it went
  // (service/server.ts), kill -9 included — no handler here runs then to stop it.
  const child = spawn(process.execPath, [entry, 'serve'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`the parcel service stopped (exit ${child.exitCode}): is port ${config.port} taken? Set PORT to another.`);
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    if (tries > 300) throw new Error('the parcel service did not start within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, account: demo.credentials.account_id, apiKey: demo.credentials.api_key, child };
}

/**
 * Electron's binary, or why there is none. From Node the `electron` package resolves to the binary's path, and
 * throws when its download never completed; npm drops the package altogether when its postinstall failed.
 */
function electronBinary(): { path: string } | { missing: string } {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('electron');
  } catch {
    return { missing: 'npm install where its download is reachable' };
  }
  try {
    const path = require('electron') as unknown;
    if (typeof path === 'string' && existsSync(path)) return { path };
  } catch { /* installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1: the package without its binary */ }
  return { missing: 'node node_modules/electron/install.js where its download is reachable' };
}

/**
 * Electron's window (electron/main.ts, built to dist/ with the preload and the host by scripts/build.mjs). Its main
 * runs the host in a utilityProcess through the development bridge, which starts dist/host.mjs in this system Node
 * (FURROW_NODE): better-sqlite3 here is compiled for Node's ABI, which Electron's own Node cannot load.
 */
async function openWindow(binary: string, home: string, account: string | undefined): Promise<ChildProcess> {
  const { ensureBuilt } = await import('../scripts/build.mjs');
  await ensureBuilt('electron-main');
  return spawn(binary, [ROOT], {
    cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, FURROW_HOME: home, FURROW_NODE: process.execPath, ...(account ? { FURROW_SHOW_ACCOUNT: account } : {}) },
  });
}

const lastPort = (file: string): number | null => {
  try {
    return Number(readFileSync(file, 'utf8').trim()) || null;
  } catch {
    return null;
  }
};

const rememberPort = (file: string, port: number) => {
  try {
    writeFileSync(file, `${port}\n`, { mode: 0o600 });
  } catch { /* not kept: the next start takes any free port, as before */ }
};

const hasDisplay = () => process.platform === 'darwin' || process.platform === 'win32' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);

async function main(): Promise<void> {
  const renderer = await ensureRenderer(say);
  const service = process.env.FURROW_SERVICE ? configuredService(process.env) : await embeddedService();
  const home = furrowHome(process.env);
  const token = randomBytes(32).toString('base64url');
  // The port of the last start when it is free: an open tab reconnects by itself (backend/tab-passes.ts) and the
  // address can be bookmarked.
  const portFile = join(home, 'app-port');
  const port = process.env.FURROW_APP_PORT ? Number(process.env.FURROW_APP_PORT) : await portPreferring(lastPort(portFile));
  let host: Host | null = null;
  let electronWindow: ChildProcess | null = null;
  let stopping = false;
  let removeLaunchPage = () => {};
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    removeLaunchPage();
    electronWindow?.kill('SIGTERM');
    await host?.close().catch(() => {});
    if (service.child && service.child.exitCode === null) service.child.kill('SIGTERM');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  // The terminal closed: the app stops as on Ctrl+C (the launch page removed, the host closing the mirror cleanly).
  process.once('SIGHUP', () => void stop());
  service.child?.once('exit', (code) => { if (code) say(`The parcel service stopped (exit ${code}): the app keeps working offline.`); });

  // Electron's window runs its own host (electron/main.ts: a utilityProcess, the renderer on a MessagePort): this
  // one then only connects and pulls, without browser mode, and hands the mirror over before the window opens.
  const electron = electronBinary();
  const windowed = 'path' in electron && hasDisplay() && !process.env.FURROW_NO_BROWSER && !process.env.FURROW_NO_ELECTRON;
  let handedOver = false;
  // The token goes to the host over its IPC channel, never in its environment (backend/launch.ts).
  host = await launchHost({ home, ...(windowed ? {} : { env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: renderer }, secrets: { browserToken: token } }) });
  host.child.once('exit', () => {
    if (handedOver) return;
    if (!stopping) say("The app's backend stopped: the app stops too.");
    void stop();
  });
  // FURROW_DEMO_ACCOUNT=0: the demo service runs and prints its credentials, but its account is not connected, so
  // an empty FURROW_HOME opens on the app's first-run Connect form (its end-to-end test, test/e2e/app-settings.test.ts).
  const account = service.child && process.env.FURROW_DEMO_ACCOUNT === '0' ? undefined : service.account;
  if (account) {
    const known = (await host.api.accounts({})).some((a) => a.id === account && a.service === service.url);
    // The organization's key goes to the host, which keeps it in its credential store: never to the page.
    const connected = known || await host.api.connect({
      service: service.url, ...(service.token ? { token: service.token } : { account, apiKey: service.apiKey }), ...(service.child ? { label: 'Demo grower' } : {}),
    }).then(() => true, (err: unknown) => { say(`Could not connect ${account} (${err instanceof Error ? err.message : String(err)}): the app shows the accounts connected before.`); return false; });
    if (connected) {
      say(`Pulling ${service.child ? 'the demo account' : account} from ${service.url}…`);
      const [r] = await host.api.sync({ account });
      say(r?.error || r?.unreachable ? `The pull did not finish (${r.error ?? r.unreachable}): the app shows what the mirror has.` : `Mirror ready in ${home}.`);
    }
  }
  if (windowed && 'path' in electron) {
    handedOver = true;
    await host.close(); // one host per mirror: the window's starts once this one has closed it
    host = null;
    say("Furrow opens in Electron's window; closing it stops the app (Ctrl+C too).");
    electronWindow = await openWindow(electron.path, home, account);
    electronWindow.once('exit', (code, signal) => {
      electronWindow = null;
      if (code !== 0 && !stopping) say(`Electron's window failed (${signal ?? `exit ${code}`}): start again with FURROW_NO_ELECTRON=1 to use the browser instead.`);
      void stop(); // the window closed (or failed): its host went with it, the app stops
    });
    return;
  }
  // The host answers `hello` before its browser server listens: the address is printed once it does.
  for (let i = 0; i < 100 && !(await fetch(`http://127.0.0.1:${port}/`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!process.env.FURROW_APP_PORT) rememberPort(portFile, port);
  const url = `http://127.0.0.1:${port}/#token=${token}${account ? `&account=${encodeURIComponent(account)}` : ''}`;
  say('path' in electron
    ? `${process.env.FURROW_NO_BROWSER ? 'FURROW_NO_BROWSER is set' : process.env.FURROW_NO_ELECTRON ? 'FURROW_NO_ELECTRON is set' : 'No display'}: Electron's window does not open.`
    : `Electron's binary is not installed (${electron.missing}): the app runs in your browser.`);
  say(`Open Furrow at ${url}   (a tab left open reconnects by itself when the app starts again; Ctrl+C stops it)`);
  // Through a page only the user can read: the token on xdg-open's command line would be every local user's.
  if (hasDisplay() && !process.env.FURROW_NO_BROWSER) removeLaunchPage = openInBrowser(url, home, port);
}

main().catch((err: unknown) => {
  process.stderr.write(`Furrow could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
