// main's trust decisions, run under plain Node (Electron cannot run here): which IPC senders get the backend's port,
// which app:// requests are answered with which file, what main hands the host (its secrets on the channel, not in its
// environment) and the packaged app's menu.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENDERER_PORT } from '../backend/node-ports.ts';
import { HOST_SECRETS, isHostSecrets, RENDERER_PORT as PROTOCOL_RENDERER_PORT } from '../core/host-protocol.ts';
import { APP_URL, appFile, CSP, HOST_PORT_MESSAGE, hostEnv, hostSecrets, isAppUrl, packagedMenu, trustedSender } from './trust.ts';

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

it('the policy allows no network, no inline script and no framing', () => {
  expect(CSP).toContain("connect-src 'none'");
  expect(CSP).toContain("script-src 'self'");
  expect(CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  expect(CSP).toContain("frame-ancestors 'none'");
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
