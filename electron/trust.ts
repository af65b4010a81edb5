// What main trusts, as pure functions (no electron import: tested by electron/trust.test.ts under plain Node). The
// window's page comes from one origin, app://furrow/ (a privileged scheme main registers); main answers an IPC
// message only from that page's main frame in the app's own window, and serves only files inside the renderer's
// folder, each with the strict policy. Also what main hands the host it starts: its secrets in the first message on
// its channel, never in its environment. The page's policy and network rule are the app's one page policy
// (core/page-policy.ts), the same as browser mode's.
import { extname, join, relative, resolve, sep, isAbsolute } from 'node:path';
import { HOST_SECRETS, type HostSecrets } from '../core/host-protocol.ts';
import { allowsRequest, ELECTRON_SHELL, pageCsp, pageHeaders, type PageRequest } from '../core/page-policy.ts';
import { BYTES_PREFIX } from '../core/bytes-protocol.ts';

export const APP_SCHEME = 'app';
export const APP_HOST = 'furrow';
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;
/** What main posts the host with a renderer's port in its transfer list (backend/node-ports.ts RENDERER_PORT). */
export const HOST_PORT_MESSAGE = { type: 'furrow:renderer-port' } as const;
/** The one IPC channel: the preload asks for the renderer's port on it, and main answers on it. */
export const PORT_CHANNEL = 'furrow:port';

/** Whether `url` is a page of the app (app://furrow/…). Non-special schemes have an opaque URL.origin, so scheme and host are compared. */
export function isAppUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST && !u.username && !u.password;
  } catch {
    return false;
  }
}

/** What main knows of an IPC message's sender (event.sender, event.senderFrame). */
export interface Sender {
  /** The web contents the message came from. */
  contentsId: number;
  /** The frame's URL; undefined when the frame is gone. */
  frameUrl: string | undefined;
  /** The frame is its page's main frame (not an iframe). */
  mainFrame: boolean;
}

/** Trusted: the main frame of the app's window, on an app page. Anything else (an iframe, another contents, a page navigated elsewhere) is not. */
export function trustedSender(s: Sender, appContentsId: number | null): boolean {
  return appContentsId !== null && s.contentsId === appContentsId && s.mainFrame && isAppUrl(s.frameUrl);
}

/**
 * The policy every page answer of app:// carries: the app's page policy in Electron's shell (core/page-policy.ts) —
 * the page's own scripts and styles, a basemap's tiles as images, OpenLayers' blob: worker, no connection but to its
 * own origin (its backend is a MessagePort).
 */
export const CSP = pageCsp(ELECTRON_SHELL);

/** The headers of a renderer file of type `type` (the CSP with nosniff, no referrer, COOP, CORP, no framing, no-cache). */
export const appHeaders = (type: string): Record<string, string> => pageHeaders(ELECTRON_SHELL, type);

/**
 * The default session's network rule (webRequest.onBeforeRequest): what the page policy allows in Electron's shell
 * (the app's own origin, data: and blob:, a basemap's tiles as images only), and the developer tools' own pages.
 * Everything else is cancelled.
 */
export function allowedRequest(details: PageRequest): boolean {
  return /^devtools:/.test(details.url) || allowsRequest(ELECTRON_SHELL, details);
}

/**
 * The powers the app's page may have: the system's location (issue 31), for a user in the field to see where they
 * stand, and writing text to the clipboard (Measure's "Copy result": Chromium asks clipboard-sanitized-write for
 * navigator.clipboard.writeText). Reading the clipboard stays refused.
 */
export const PAGE_PERMISSIONS: ReadonlySet<string> = new Set(['geolocation', 'clipboard-sanitized-write']);

/**
 * Main's permission handlers (session.setPermissionRequestHandler and setPermissionCheckHandler): the location and a
 * clipboard write, asked by a page of the app (app://furrow) from its main frame, and nothing else — no camera,
 * microphone, notification, clipboard read, MIDI, serial or HID device, for the app or any other origin, in any frame. `url`: the
 * requesting page's URL (or origin, for a check); `mainFrame`: false for an iframe (unknown for a check: undefined).
 */
export function allowsPermission(permission: string, url: string | undefined, mainFrame?: boolean): boolean {
  return PAGE_PERMISSIONS.has(permission) && isAppUrl(url) && mainFrame !== false;
}

/** Whether an app:// request is for the host's bytes (app://furrow/bytes/…, served by asking the host: electron/bytes.ts). */
export function isBytesUrl(url: string): boolean {
  if (!isAppUrl(url)) return false;
  try {
    return new URL(url).pathname.startsWith(BYTES_PREFIX);
  } catch {
    return false;
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.map': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
};

/**
 * The file an app:// request names inside `root` (the built renderer), with its type; null for another scheme or
 * host, a path out of the folder (`..`, encoded or not), or a type the renderer does not have.
 */
export function appFile(root: string, url: string): { path: string; type: string } | null {
  if (!isAppUrl(url)) return null;
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  const file = resolve(join(root, path === '/' ? 'index.html' : path));
  const rel = relative(resolve(root), file);
  if (!rel || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return null;
  const type = TYPES[extname(file).toLowerCase()];
  return type ? { path: file, type } : null;
}

/**
 * The first message main posts the host (core/host-protocol.ts HOST_SECRETS), right after forking it: always sent,
 * since the host reads nothing before it; the sealing key only when safeStorage has one.
 */
export function hostSecrets(credentialKey: string | null): HostSecrets {
  return { type: HOST_SECRETS, ...(credentialKey ? { credentialKey } : {}) };
}

/**
 * Variables that carried a secret to the host before it took them over its channel (HOST_SECRETS): never passed on,
 * even when main's own environment happens to have one.
 */
const SECRET_VARIABLES = ['FURROW_CREDENTIAL_KEY', 'FURROW_BROWSER_TOKEN'];

/**
 * The host's environment (utilityProcess.fork's `env`): main's own, without those, with FURROW_NODE in development
 * (the bridge starts the host in that Node; not a secret). FURROW_API_KEY, when the user set it, stays: it is the
 * user's choice of where the organization's key lives (sync/credentials.ts), not something main hands over.
 */
export function hostEnv(env: NodeJS.ProcessEnv, systemNode: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !SECRET_VARIABLES.includes(k)) out[k] = v;
  if (systemNode) out.FURROW_NODE = systemNode;
  return out;
}

/**
 * The packaged app's menu: Electron's default one has a View menu whose toggleDevTools item (Ctrl+Shift+I, F12 on
 * some platforms) opens the developer tools. This one keeps what a desktop app needs without it: on macOS the app
 * menu (About, Hide, Quit) and the Edit menu, without which Cmd+C and Cmd+V do nothing in a text field; elsewhere the
 * File menu (Quit) and the Edit menu. No View menu, no reload, no devtools.
 */
export function packagedMenu(platform: NodeJS.Platform): { role: 'appMenu' | 'fileMenu' | 'editMenu' | 'windowMenu' }[] {
  return [{ role: platform === 'darwin' ? 'appMenu' : 'fileMenu' }, { role: 'editMenu' }, { role: 'windowMenu' }];
}
