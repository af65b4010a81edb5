// Electron's main process: one hardened window on the app's browser-mode address (loopback, the per-launch token in
// the fragment). The window is a second browser over the transport the end-to-end tests prove, not a second
// transport: no preload and no IPC, so the page has no channel into this process to abuse and none to validate.
//
// Where the mirror host runs:
// - development (`npm start`, app/start.ts): system Node runs the service, the host and browser mode, as in the
//   browser, and hands the address here in FURROW_APP_URL (the environment: other local users can read argv in
//   /proc, not it). The host stays in system Node because better-sqlite3 there is compiled for Node's ABI, which
//   Electron's own Node cannot load.
// - packaged (no system Node): the host runs in a utilityProcess (better-sqlite3 rebuilt for Electron by
//   electron-builder), browser mode on a fresh token, and reports its port. Untested here: see docs/app.md.
import { app, BrowserWindow, safeStorage, session, shell, utilityProcess, type WebContents } from 'electron';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Read and removed at once: the GPU, network and utility processes Electron starts inherit no token.
const devUrl = process.env.FURROW_APP_URL;
delete process.env.FURROW_APP_URL;

// Every renderer sandboxed, whatever a window's webPreferences say.
app.enableSandbox();

/**
 * The key that seals the accounts' secrets (sync/sealed-credentials.ts), kept encrypted by safeStorage (the login
 * keychain, DPAPI, or the Secret Service): made once, 32 random bytes. None where safeStorage has no real keychain
 * (Linux without one falls back to a fixed password, which protects nothing): the host keeps its 0600 file then.
 */
function credentialKey(): string | null {
  if (!safeStorage.isEncryptionAvailable()) return null;
  if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') return null;
  const file = join(app.getPath('userData'), 'credentials.key');
  if (existsSync(file)) return safeStorage.decryptString(readFileSync(file));
  const key = randomBytes(32).toString('base64');
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, safeStorage.encryptString(key), { mode: 0o600 });
  return key;
}

/** The packaged app's host: dist/host.mjs in a utilityProcess, resolved with the address its browser mode took. */
async function packagedHost(): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const dist = join(app.getAppPath(), 'dist');
  const key = credentialKey();
  const host = utilityProcess.fork(join(dist, 'host.mjs'), [], {
    serviceName: 'Furrow mirror host', stdio: 'inherit',
    env: {
      ...process.env, FURROW_BROWSER_TOKEN: token, FURROW_BROWSER_PORT: '0', FURROW_RENDERER_DIR: join(dist, 'renderer'),
      ...(key ? { FURROW_CREDENTIAL_KEY: key } : {}),
    },
  });
  app.on('will-quit', () => host.kill());
  const port = await new Promise<number>((ok, fail) => {
    host.on('message', (m: unknown) => {
      const p = (m as { furrowBrowserPort?: unknown } | null)?.furrowBrowserPort;
      if (typeof p === 'number') ok(p);
    });
    host.once('exit', (code) => fail(new Error(`the mirror host exited (${code})`)));
  });
  host.once('exit', () => app.quit());
  return `http://127.0.0.1:${port}/#token=${token}`;
}

/** The policy the server sends with every answer (backend/browser-server.ts). */
function csp(origin: string): string {
  const ws = origin.replace(/^http/, 'ws');
  return [
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "font-src 'self'",
    `connect-src 'self' ${ws}`, "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'", "object-src 'none'",
  ].join('; ');
}

/** Guards for every web contents ever created, windows and anything else: only the app's origin, in one window. */
function guard(origin: string): void {
  const foreign = (url: string) => {
    try {
      return new URL(url).origin !== origin;
    } catch {
      return true;
    }
  };
  app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.on('will-navigate', (event, url) => { if (foreign(url)) event.preventDefault(); });
    contents.on('will-redirect', (event, url) => { if (foreign(url)) event.preventDefault(); });
    contents.on('will-frame-navigate', (event) => { if (foreign(event.url)) event.preventDefault(); });
    // No second window ever: a web link goes to the system browser, anything else nowhere.
    contents.setWindowOpenHandler(({ url }) => {
      if (/^https?:\/\//i.test(url) && foreign(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
  });
  const s = session.defaultSession;
  // The app needs no camera, location, notification, clipboard or device: every request and check is refused.
  s.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  s.setPermissionCheckHandler(() => false);
  s.setDevicePermissionHandler(() => false);
  // The server's own policy, enforced by the window whatever a response says: a second policy can only narrow.
  const policy = csp(origin);
  s.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] } });
  });
}

async function main(): Promise<void> {
  await app.whenReady(); // sessions and utilityProcess.fork exist only from here on
  const url = app.isPackaged ? await packagedHost() : devUrl;
  if (!url) throw new Error('FURROW_APP_URL is not set: start the app with npm start');
  const { origin, hostname } = new URL(url);
  if (hostname !== '127.0.0.1' && hostname !== 'localhost') throw new Error('the app is served on loopback only');
  guard(origin);
  const win = new BrowserWindow({
    width: 1280, height: 820, show: false, title: 'Furrow', autoHideMenuBar: true,
    webPreferences: {
      contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false,
      webSecurity: true, allowRunningInsecureContent: false, experimentalFeatures: false, webviewTag: false, navigateOnDragDrop: false,
      // A middle click opens no window either (setWindowOpenHandler would deny it anyway).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  win.once('ready-to-show', () => win.show());
  await win.loadURL(url);
}

app.on('window-all-closed', () => app.quit());
main().catch((err: unknown) => {
  process.stderr.write(`Furrow's window could not open: ${err instanceof Error ? err.message : String(err)}\n`);
  app.exit(1);
});
