// main's trust decisions, run under plain Node (Electron cannot run here): which IPC senders get the backend's port,
// which app:// requests are answered with which file, the page's policy and network rule, what main hands the host (its secrets on the channel, not in its
// environment) and the packaged app's menu.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENDERER_PORT } from '../backend/node-ports.ts';
import { HOST_SECRETS, isHostSecrets, RENDERER_PORT as PROTOCOL_RENDERER_PORT } from '../core/host-protocol.ts';
import { APP_ORIGIN, ELECTRON_SHELL, pageCsp, pageHeaders } from '../core/page-policy.ts';
import { BASEMAP_IMG_SOURCES } from '../core/basemap.ts';
import {
  allowedRequest, allowsPermission, APP_HOST, APP_SCHEME, APP_URL, appFile, appHeaders, CSP, HOST_PORT_MESSAGE, hostEnv, hostSecrets, isAppUrl, isBytesUrl, packagedMenu, trustedSender,
} from './trust.ts';

describe('trustedSender', () => {
  const app = { contentsId: 7, frameUrl: APP_URL, mainFrame: true };
  it("trusts the main frame of the app's window on an app page", () => {
    expect(trustedSender(app, 7)).toBe(true);
    expect(trustedSender({ ...app, frameUrl: 'app://furrow/index.html#x' }, 7)).toBe(true);
  });
  it('refuses another window, an iframe, a foreign or vanished page, and any sender before the window exists', () => {
    expect(trustedSender({ ...app, contentsId: 8 }, 7)).toBe(false);
    expect(trustedSender({ ...app, mainFrame: false }, 7)).toBe(false);
    expect(trustedSender({ ...app, frameUrl: 'https://evil.example/' }, 7)).toBe(false);
    expect(trustedSender({ ...app, frameUrl: 'app://furrow.evil.example/' }, 7)).toBe(false);
    expect(trustedSender({ ...app, frameUrl: 'app://user:pw@furrow/' }, 7)).toBe(false);
    expect(trustedSender({ ...app, frameUrl: 'file:///index.html' }, 7)).toBe(false);
    expect(trustedSender({ ...app, frameUrl: undefined }, 7)).toBe(false);
    expect(trustedSender(app, null)).toBe(false);
  });
  it('isAppUrl needs the scheme and the host', () => {
    expect(isAppUrl('app://furrow/')).toBe(true);
    expect(isAppUrl('app://other/')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });
});

describe('allowsPermission (main\'s permission request and check handlers)', () => {
  it("grants the location to the app's page, from its main frame (a check, which knows no frame, from its origin)", () => {
    expect(allowsPermission('geolocation', APP_URL, true)).toBe(true);
    expect(allowsPermission('geolocation', 'app://furrow', undefined)).toBe(true);
  });
  it('refuses it to any other origin and to a frame, and refuses every other permission to everyone', () => {
    for (const url of ['https://evil.example/', 'app://furrow.evil.example/', 'app://user:pw@furrow/', 'file:///index.html', 'http://127.0.0.1:5173/', undefined]) {
      expect(allowsPermission('geolocation', url, true), String(url)).toBe(false);
    }
    expect(allowsPermission('geolocation', APP_URL, false)).toBe(false);
    expect(allowsPermission('clipboard-sanitized-write', APP_URL, true)).toBe(true);
    expect(allowsPermission('clipboard-sanitized-write', 'https://evil.example/', true)).toBe(false);
    for (const p of ['media', 'notifications', 'clipboard-read', 'midi', 'midiSysex', 'pointerLock', 'fullscreen', 'openExternal', 'display-capture', 'serial', 'hid', 'usb', 'idle-detection', 'window-management', 'unknown']) {
      expect(allowsPermission(p, APP_URL, true), p).toBe(false);
    }
  });
});

describe('appFile', () => {
  const root = resolve('/srv/renderer');
  it('serves the renderer files with their types, index.html for the root', () => {
    expect(appFile(root, 'app://furrow/')).toEqual({ path: join(root, 'index.html'), type: 'text/html; charset=utf-8' });
    expect(appFile(root, 'app://furrow/assets/index-abc.js')).toEqual({ path: join(root, 'assets/index-abc.js'), type: 'text/javascript; charset=utf-8' });
    expect(appFile(root, 'app://furrow/assets/index.css?v=1#x')?.type).toBe('text/css; charset=utf-8');
  });
  it('refuses paths out of the folder, other hosts and schemes, and unknown types', () => {
    // A literal .. is resolved by URL parsing itself, at the root: the file named stays inside the folder.
    expect(appFile(root, 'app://furrow/../secret.js')?.path).toBe(join(root, 'secret.js'));
    expect(appFile(root, 'app://furrow/%2e%2e/%2e%2e/etc/passwd.js')?.path).toBe(join(root, 'etc/passwd.js'));
    // Encoded slashes are one segment for the URL, a path for the file system once decoded: refused.
    expect(appFile(root, 'app://furrow/%2e%2e%2f%2e%2e%2fetc%2fpasswd.js')).toBeNull();
    expect(appFile(root, 'app://furrow/..%2fsecret.html')).toBeNull();
    expect(appFile(root, 'app://furrow/a%00.js')).toBeNull();
    expect(appFile(root, 'app://other/index.html')).toBeNull();
    expect(appFile(root, 'file:///srv/renderer/index.html')).toBeNull();
    expect(appFile(root, 'app://furrow/run.sh')).toBeNull();
  });
});

describe("the page's policy and network", () => {
  it("is the app's one page policy: no connection but the app's own origin, no inline script, no framing; a basemap's tiles and OpenLayers' worker allowed", () => {
    expect(CSP).toBe(pageCsp(ELECTRON_SHELL));
    expect(CSP).toContain("connect-src 'self';");
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toMatch(/unsafe-inline|unsafe-eval|ws:/);
    expect(CSP).toContain("frame-ancestors 'none'");
    expect(CSP).toContain(`img-src 'self' data: blob: ${BASEMAP_IMG_SOURCES.join(' ')};`);
    expect(CSP).toContain('worker-src blob:;');
    expect(appHeaders('text/html; charset=utf-8')).toEqual(pageHeaders(ELECTRON_SHELL, 'text/html; charset=utf-8'));
    expect(`${APP_SCHEME}://${APP_HOST}`).toBe(APP_ORIGIN);
    expect(APP_URL.startsWith(`${APP_ORIGIN}/`)).toBe(true);
  });

  it("cancels every request but the app's own, data:, blob:, the developer tools and a basemap's tiles as images", () => {
    expect(allowedRequest({ url: APP_URL, resourceType: 'mainFrame' })).toBe(true);
    expect(allowedRequest({ url: 'app://furrow/bytes/k/i/n.csv', resourceType: 'other' })).toBe(true);
    expect(allowedRequest({ url: 'devtools://devtools/bundled/inspector.html', resourceType: 'mainFrame' })).toBe(true);
    expect(allowedRequest({ url: 'blob:app://furrow/1234', resourceType: 'other' })).toBe(true);
    expect(allowedRequest({ url: 'https://tile.openstreetmap.org/1/0/0.png', resourceType: 'image' })).toBe(true);
    expect(allowedRequest({ url: 'http://127.0.0.1:8088/1/0/0.png', resourceType: 'image' })).toBe(true);
    expect(allowedRequest({ url: 'https://tile.openstreetmap.org/1/0/0.png', resourceType: 'xhr' })).toBe(false);
    expect(allowedRequest({ url: 'https://evil.example/x.js', resourceType: 'script' })).toBe(false);
    expect(allowedRequest({ url: 'http://tiles.example.org/1/0/0.png', resourceType: 'image' })).toBe(false);
    expect(allowedRequest({ url: 'file:///etc/passwd', resourceType: 'image' })).toBe(false);
    expect(allowedRequest({ url: 'app://other/x', resourceType: 'mainFrame' })).toBe(false);
  });

  it('tells the bytes path from the renderer\'s files', () => {
    expect(isBytesUrl('app://furrow/bytes/k/i/n.csv')).toBe(true);
    expect(isBytesUrl('app://furrow/index.html')).toBe(false);
    expect(isBytesUrl('app://other/bytes/k/i/n.csv')).toBe(false);
    expect(isBytesUrl('https://evil.example/bytes/k/i/n.csv')).toBe(false);
    // The renderer's files never include it: a bytes request is the host's.
    expect(appFile(resolve('/srv/renderer'), 'app://furrow/bytes/k/i/n.csv')).toBeNull();
  });
});

it("main's message with a renderer port is the one the host accepts (electron/ cannot import backend/)", () => {
  expect(HOST_PORT_MESSAGE.type).toBe(RENDERER_PORT);
  expect(HOST_PORT_MESSAGE.type).toBe(PROTOCOL_RENDERER_PORT);
});

describe("the host's secrets", () => {
  it('go in the first message, which the host accepts, with the key or without one', () => {
    expect(hostSecrets('a2V5')).toEqual({ type: HOST_SECRETS, credentialKey: 'a2V5' });
    expect(hostSecrets(null)).toEqual({ type: HOST_SECRETS });
    expect(Object.keys(hostSecrets(null))).toEqual(['type']);
    expect(isHostSecrets(hostSecrets('a2V5'))).toBe(true);
    expect(isHostSecrets(hostSecrets(null))).toBe(true);
  });
  it("never in the host's environment, even when main's own has one; FURROW_NODE only in development", () => {
    const env = { PATH: '/usr/bin', FURROW_HOME: '/home/u/.furrow', FURROW_CREDENTIAL_KEY: 'leaked', FURROW_BROWSER_TOKEN: 'leaked', UNSET: undefined };
    expect(hostEnv(env, null)).toEqual({ PATH: '/usr/bin', FURROW_HOME: '/home/u/.furrow' });
    expect(hostEnv(env, '/usr/bin/node')).toEqual({ PATH: '/usr/bin', FURROW_HOME: '/home/u/.furrow', FURROW_NODE: '/usr/bin/node' });
    expect(JSON.stringify(hostEnv(env, null))).not.toContain('leaked');
    expect(env.FURROW_CREDENTIAL_KEY).toBe('leaked'); // main's own environment untouched
  });
});

it("the packaged menu has no developer tools, and keeps the Edit menu (macOS's copy and paste)", () => {
  for (const platform of ['darwin', 'linux', 'win32'] as const) {
    const roles = packagedMenu(platform).map((m) => m.role);
    expect(roles).toContain('editMenu');
    expect(roles).not.toContain('viewMenu');
    expect(roles).not.toContain('toggleDevTools');
    expect(JSON.stringify(packagedMenu(platform))).not.toMatch(/devtools|reload/i);
  }
  expect(packagedMenu('darwin')[0]?.role).toBe('appMenu');
  expect(packagedMenu('linux')[0]?.role).toBe('fileMenu');
});
