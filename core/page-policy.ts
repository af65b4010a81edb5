// One policy for a page of the app, whichever shell serves it: browser mode's loopback server
// (backend/browser-server.ts) and Electron's app:// protocol handler (electron/main.ts) both build their answers'
// Content-Security-Policy and security headers here, and Electron's network rule too, from the one thing that differs
// between them — the shell (its own origins, and where the page opens its connection to the host). So the page gets
// the same powers in both: a basemap that loads in the browser loads in Electron's window, OpenLayers' WebGL worker
// runs in both, and a change of policy is made once. Pure (no I/O): core/page-policy.test.ts holds the two shells'
// policies side by side.
import { BASEMAP_IMG_SOURCES, isBasemapImageUrl } from './basemap.ts';

/** The origin of Electron's page (main registers app:// as a privileged standard, secure scheme). */
export const APP_ORIGIN = 'app://furrow';

/** What differs between the two shells, and nothing else. */
export interface Shell {
  /** The page's own origins: app://furrow in Electron; http://127.0.0.1:<port> and http://localhost:<port> in browser mode. */
  origins: readonly string[];
  /** Where the page opens its connection to the host: browser mode's WebSocket origins; none in Electron (a MessagePort). */
  backend: readonly string[];
}

export const ELECTRON_SHELL: Shell = Object.freeze({ origins: Object.freeze([APP_ORIGIN]), backend: Object.freeze([]) });

/** Browser mode on 127.0.0.1:`port` (a page may also be opened as localhost:`port`). */
export function browserShell(port: number): Shell {
  return { origins: [`http://127.0.0.1:${port}`, `http://localhost:${port}`], backend: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`] };
}

/**
 * The policy's directives, in order. No inline script or style, no eval; scripts, styles and fonts from the app
 * itself. Images may also come from where an optional basemap's tiles do (core/basemap.ts: https anywhere, http from
 * this computer): the tile address is a view setting the page keeps, unknown to whoever serves the page, and an
 * image can run nothing nor read any answer. OpenLayers' WebGL vector layer builds its buffers in a worker made from
 * a blob: URL by the bundle's own code. The page may connect to its own origin (its /bytes/ answers) and to the
 * shell's backend, nothing else; it frames nothing, posts no form, and nothing frames it.
 */
export function pageDirectives(shell: Shell): [string, ...string[]][] {
  return [
    ['default-src', "'none'"],
    ['script-src', "'self'"],
    ['style-src', "'self'"],
    ['img-src', "'self'", 'data:', 'blob:', ...BASEMAP_IMG_SOURCES],
    ['font-src', "'self'"],
    ['worker-src', 'blob:'],
    ['connect-src', "'self'", ...shell.backend],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-ancestors', "'none'"],
    ['object-src', "'none'"],
  ];
}

/** The Content-Security-Policy of a page of the app in `shell`. */
export function pageCsp(shell: Shell): string {
  return pageDirectives(shell).map((d) => d.join(' ')).join('; ');
}

/**
 * The powers a page may ask the browser for (Permissions-Policy): the location, for its own origin only — a user in
 * the field sees where they stand (issue 31) — and nothing else, in any frame. Browser mode sends it with every page
 * file; in Electron, main's permission handlers decide (electron/trust.ts allowsPermission: the location for
 * app://furrow alone), and the header says the same to the renderer.
 */
export const PERMISSIONS_POLICY = [
  'geolocation=(self)',
  ...['accelerometer', 'ambient-light-sensor', 'autoplay', 'bluetooth', 'camera', 'clipboard-read', 'display-capture', 'encrypted-media', 'fullscreen',
    'gamepad', 'gyroscope', 'hid', 'idle-detection', 'local-fonts', 'magnetometer', 'microphone', 'midi', 'payment', 'picture-in-picture',
    'publickey-credentials-get', 'screen-wake-lock', 'serial', 'storage-access', 'usb', 'web-share', 'xr-spatial-tracking'].map((f) => `${f}=()`),
].join(', ');

/** A /bytes/ answer's: no power at all, the location included. */
export const BYTES_PERMISSIONS_POLICY = PERMISSIONS_POLICY.replace('geolocation=(self)', 'geolocation=()');

/**
 * What every answer carries besides its policy: no MIME sniffing, no Referer sent anywhere, a window of its own
 * (COOP) whose answers no other origin may embed (CORP), no framing for older browsers either, and no stale copy.
 */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
} as const;

/** The headers of a page's file (index.html, a script, a stylesheet…) of type `contentType`, in `shell`. Names lower case. */
export function pageHeaders(shell: Shell, contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'content-security-policy': pageCsp(shell), ...SECURITY_HEADERS, 'permissions-policy': PERMISSIONS_POLICY, 'cache-control': 'no-cache' };
}

/**
 * The policy of a /bytes/ answer (core/bytes-protocol.ts): bytes the host made for one page session — an export, a
 * map's tiles — are never a document. Should one be opened as a page anyway, it is sandboxed (an opaque origin: no
 * script, no access to the app's) and loads nothing. Not cached: an export is the user's data, at a capability
 * address, gone once its session ends.
 */
export const BYTES_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

/** The security headers of a /bytes/ answer, the same in both shells (the answer's own headers come from bytesHead). */
export function bytesPolicyHeaders(): Record<string, string> {
  return { 'content-security-policy': BYTES_CSP, ...SECURITY_HEADERS, 'permissions-policy': BYTES_PERMISSIONS_POLICY, 'cache-control': 'no-store' };
}

/** What a shell knows of a request its page makes (Electron: webRequest's details). */
export interface PageRequest {
  url: string;
  /** Electron's webRequest resourceType: 'image', 'script', 'xhr', 'mainFrame'… */
  resourceType: string;
}

/**
 * Whether the page's request may leave for `url`: the page's own origin, data: and blob: (the CSP narrows them
 * further), and images from a basemap's sources (the CSP's img-src list) — nothing else, whatever its type. Browser
 * mode leaves this to the browser, which enforces the CSP; Electron's main also cancels everything else in
 * webRequest.onBeforeRequest, so a page that slipped past the policy still reaches nothing.
 */
export function allowsRequest(shell: Shell, req: PageRequest): boolean {
  let u: URL;
  try {
    u = new URL(req.url);
  } catch {
    return false;
  }
  if (u.protocol === 'data:' || u.protocol === 'blob:') return true;
  // Compared by scheme and host: URL.origin is 'null' for a non-special scheme (app:).
  if (!u.username && !u.password && shell.origins.includes(`${u.protocol}//${u.host}`)) return true;
  return req.resourceType === 'image' && isBasemapImageUrl(req.url);
}
