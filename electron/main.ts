// Electron's main process: the mirror host in a utilityProcess, one hardened window loading the built renderer from
// app://furrow/ (a privileged scheme served here, every answer with the app's page policy, core/page-policy.ts), and
// one IPC channel on which the window's preload asks for a MessagePort straight to the host (and one more on which
// it asks main to show its open dialog for a layer file: the page gets a ticket, the host the path). Main validates every
// sender (electron/trust.ts), never sees the API's messages (the port runs renderer ⇄ host) and never holds an
// account's secret: the host keeps them. The host's bytes for the page (app://furrow/bytes/…) pass through main.
// The host's own secret (the sealing key) goes to it as the first message on its channel, never in its environment;
// the system browser opens only the web links the host announced (electron/external-links.ts). One instance only.
//
// Where the host runs:
// - packaged: dist/host.mjs in the utilityProcess (better-sqlite3 rebuilt for Electron by electron-builder).
// - development (`npm start`, app/start.ts): the utilityProcess runs dist/host-bridge.mjs, which starts dist/host.mjs
//   in system Node (FURROW_NODE): better-sqlite3 there is compiled for Node's ABI, which Electron's Node cannot load.
//   The bridge carries each renderer port over the child's IPC as a session (backend/host-bridge.ts).
// Untested here: Electron's binary cannot be downloaded on these machines (docs/app.md, Electron).
import {
  app, BrowserWindow, dialog, ipcMain, Menu, MessageChannelMain, net, protocol, safeStorage, session, shell, utilityProcess, type UtilityProcess, type WebContents,
} from 'electron';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BYTES_PORT, isExternalLink } from '../core/host-protocol.ts';
import { ExternalLinks, linkDialog, OPEN_BUTTON, type LinkDecision } from './external-links.ts';
import { bytesResponse } from './bytes.ts';
import { chosenFile, CHOOSE_LAYER_FILE_CHANNEL, layerFileDialog } from './layer-files.ts';
import {
  allowedRequest, allowsPermission, APP_SCHEME, APP_URL, appFile, appHeaders, HOST_PORT_MESSAGE, hostEnv, hostSecrets, isAppUrl, isBytesUrl, packagedMenu, PORT_CHANNEL, trustedSender,
} from './trust.ts';

// Read and removed at once: the GPU, network and utility processes Electron starts inherit none of them.
const systemNode = process.env.FURROW_NODE;
const showAccount = process.env.FURROW_SHOW_ACCOUNT;
delete process.env.FURROW_NODE;
delete process.env.FURROW_SHOW_ACCOUNT;

// One instance per user (Electron's lock is on the userData folder): a second start would fork a second host on the
// same mirror. It wakes the first one ('second-instance', below) and quits before it starts anything.
const primary = app.requestSingleInstanceLock();
if (!primary) app.quit();

// Every renderer sandboxed, whatever a window's webPreferences say.
app.enableSandbox();
// app:// behaves as a secure, standard origin (relative URLs, `self` in the CSP, no mixed content); before ready.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true } }]);

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

/**
 * The host (packaged) or the bridge to it (development), in a utilityProcess; the app quits when it exits. Its
 * secrets go in the first message on its channel (the host reads it before it opens anything; the bridge passes it
 * on first), so that its environment, which /proc shows, holds none. What the host announces as an external link is
 * kept in `links`, for the window-open handler.
 */
function startHost(dist: string, links: ExternalLinks): UtilityProcess {
  if (!app.isPackaged && !systemNode) throw new Error('FURROW_NODE is not set: start the app with npm start');
  // Sealed in the package only: in a checkout the same FURROW_HOME serves browser mode and the CLI too, which have no
  // keychain key and must still read the accounts' secrets.
  const key = app.isPackaged ? credentialKey() : null;
  const entry = app.isPackaged ? 'host.mjs' : 'host-bridge.mjs';
  const host = utilityProcess.fork(join(dist, entry), [], {
    serviceName: 'Furrow mirror host', stdio: 'inherit', env: hostEnv(process.env, app.isPackaged ? null : systemNode ?? null),
  });
  // Always, key or not: the host waits for it. Posted before any renderer's port (handOutPorts runs later), and a
  // utilityProcess's channel keeps order (messages wait for the child to listen).
  host.postMessage(hostSecrets(key));
  host.on('message', (message: unknown) => { if (isExternalLink(message)) links.announce(message.url, message.service); });
  host.once('exit', (code) => {
    process.stderr.write(`The mirror host exited (${code}): Furrow stops.\n`);
    app.quit();
  });
  app.on('will-quit', () => host.kill());
  return host;
}

/**
 * app://furrow/…: the built renderer's files only, each with the app's page policy (core/page-policy.ts, as browser
 * mode's); and app://furrow/bytes/…, the host's byte resources (an export to download), asked of the host on a port of
 * their own per request (electron/bytes.ts): main passes the bytes on, a chunk at a time.
 */
function serveApp(root: string, host: UtilityProcess): void {
  protocol.handle(APP_SCHEME, async (request) => {
    if (isBytesUrl(request.url)) {
      return bytesResponse(request, () => {
        const { port1, port2 } = new MessageChannelMain();
        host.postMessage({ type: BYTES_PORT }, [port1]);
        return port2;
      });
    }
    const file = request.method === 'GET' ? appFile(root, request.url) : null;
    if (!file || !existsSync(file.path)) return new Response('Not found', { status: 404, headers: appHeaders('text/plain; charset=utf-8') });
    const res = await net.fetch(pathToFileURL(file.path).href);
    return new Response(res.body, { status: res.status, headers: appHeaders(file.type) });
  });
}

/**
 * Guards for every web contents ever created: only app pages, in one window; a web link the host announced goes to
 * the system browser, nothing else does.
 */
function guard(links: ExternalLinks): void {
  app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.on('will-navigate', (event, url) => { if (!isAppUrl(url)) event.preventDefault(); });
    contents.on('will-redirect', (event, url) => { if (!isAppUrl(url)) event.preventDefault(); });
    contents.on('will-frame-navigate', (event) => { if (!isAppUrl(event.url)) event.preventDefault(); });
    // No second window ever. The system browser opens only an address the host announced (the account's embedded
    // map) within the last minutes, http(s) without credentials, and as the host spelled it: a page cannot make main
    // open anything it likes (a file:, smb: or custom-protocol address, a web page of its choosing). One off its
    // service's origin (a service the page connected may answer any link) only once the user said so.
    contents.setWindowOpenHandler(({ url }) => {
      const decision = links.decide(url);
      if (decision?.action === 'open') void shell.openExternal(decision.href);
      else if (decision?.action === 'ask') void askToOpen(contents, decision);
      return { action: 'deny' };
    });
  });
  const s = session.defaultSession;
  // The app's page may know the system's location (issue 31: where the user stands); it needs no camera,
  // notification, clipboard or device: every other request and check is refused, and every one from another origin
  // or a frame (electron/trust.ts allowsPermission).
  s.setPermissionRequestHandler((_contents, permission, callback, details) => callback(allowsPermission(permission, details.requestingUrl, details.isMainFrame)));
  s.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) => allowsPermission(permission, details.requestingUrl ?? requestingOrigin, details.isMainFrame));
  s.setDevicePermissionHandler(() => false);
  // Nothing leaves the window over the network but a basemap's tiles, as images (the page policy's img-src, as in
  // browser mode): the backend is a MessagePort, the renderer's files and the host's bytes app://.
  s.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !allowedRequest(details) }));
}

/** Asks the user, in a native dialog over the window (Cancel the default), before a link off its service is opened. */
async function askToOpen(contents: WebContents, ask: Extract<LinkDecision, { action: 'ask' }>): Promise<void> {
  const options = linkDialog(ask);
  const parent = BrowserWindow.fromWebContents(contents);
  const { response } = await (parent ? dialog.showMessageBox(parent, options) : dialog.showMessageBox(options));
  if (response === OPEN_BUTTON) await shell.openExternal(ask.href);
}

/**
 * The one IPC channel: the preload asks for the backend's port. Answered only to the main frame of the app's window
 * on an app page; each answer is a fresh channel, one end to the host, the other to the page (a reload asks again).
 */
function handOutPorts(host: UtilityProcess, win: () => BrowserWindow | null): void {
  ipcMain.on(PORT_CHANNEL, (event) => {
    const frame = event.senderFrame;
    const sender = { contentsId: event.sender.id, frameUrl: frame?.url, mainFrame: frame !== null && frame.parent === null };
    if (!trustedSender(sender, win()?.webContents.id ?? null)) return;
    const { port1, port2 } = new MessageChannelMain();
    host.postMessage(HOST_PORT_MESSAGE, [port1]);
    event.sender.postMessage(PORT_CHANNEL, null, [port2]);
  });
}

/**
 * "Open a file as a layer…": the page asks (the preload's chooseLayerFile) and gets only a ticket; main shows its own
 * dialog over the window and hands the host the path under that ticket (electron/layer-files.ts). Answered only to
 * the app window's main frame on an app page, as the port's channel is.
 */
function chooseLayerFiles(host: UtilityProcess, win: () => BrowserWindow | null): void {
  ipcMain.handle(CHOOSE_LAYER_FILE_CHANNEL, async (event) => {
    const frame = event.senderFrame;
    const sender = { contentsId: event.sender.id, frameUrl: frame?.url, mainFrame: frame !== null && frame.parent === null };
    const w = win();
    if (!w || !trustedSender(sender, w.webContents.id)) return null;
    const chosen = chosenFile(await dialog.showOpenDialog(w, layerFileDialog()));
    if (!chosen) return null;
    host.postMessage(chosen);
    return chosen.ticket;
  });
}

/** The app's one window, once open. */
let win: BrowserWindow | null = null;

async function main(): Promise<void> {
  await app.whenReady(); // sessions, protocols and utilityProcess.fork exist only from here on
  // Packaged, the default menu's View ▸ Toggle Developer Tools (and its shortcut) is gone with the menu itself; the
  // window's devTools is off too. In development both stay.
  if (app.isPackaged) Menu.setApplicationMenu(Menu.buildFromTemplate(packagedMenu(process.platform)));
  // app.getAppPath(): the package's app.asar (the onlyLoadAppFromAsar fuse makes it the only place the app loads
  // from), the repository in development. dist/ is inside either.
  const dist = join(app.getAppPath(), 'dist');
  const links = new ExternalLinks();
  guard(links);
  const host = startHost(dist, links);
  serveApp(join(dist, 'renderer'), host);
  handOutPorts(host, () => win);
  chooseLayerFiles(host, () => win);
  win = new BrowserWindow({
    width: 1280, height: 820, show: false, title: 'Furrow', autoHideMenuBar: true,
    webPreferences: {
      preload: join(dist, 'preload.cjs'),
      contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false,
      webSecurity: true, allowRunningInsecureContent: false, experimentalFeatures: false, webviewTag: false, navigateOnDragDrop: false,
      // A middle click opens no window either (setWindowOpenHandler would deny it anyway).
      disableBlinkFeatures: 'Auxclick',
      // No developer tools in a package: their console runs any script in the page, the host's API behind its port.
      devTools: !app.isPackaged,
    },
  });
  win.once('ready-to-show', () => win?.show());
  win.on('closed', () => { win = null; });
  await win.loadURL(showAccount ? `${APP_URL}#account=${encodeURIComponent(showAccount)}` : APP_URL);
}

if (primary) {
  // Started again while running: the window that exists comes to the front instead.
  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  });
  app.on('window-all-closed', () => app.quit());
  main().catch((err: unknown) => {
    process.stderr.write(`Furrow's window could not open: ${err instanceof Error ? err.message : String(err)}\n`);
    app.exit(1);
  });
}
