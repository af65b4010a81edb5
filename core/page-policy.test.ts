// The app's one page policy in its two shells, side by side: browser mode's loopback server and Electron's app://
// handler give a page the same policy, headers and network, but for what only the shell decides — the WebSocket
// browser mode's page talks to (Electron's talks over a MessagePort) and the page's own origin.
import { describe, expect, it } from 'vitest';
import { allowsRequest, APP_ORIGIN, browserShell, BYTES_CSP, bytesPolicyHeaders, ELECTRON_SHELL, pageCsp, pageDirectives, pageHeaders, PERMISSIONS_POLICY } from './page-policy.ts';
import { BASEMAP_IMG_SOURCES, basemapUrlProblem } from './basemap.ts';

const browser = browserShell(43210);
const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]));

describe('one page policy for both shells', () => {
  it('is the same in both but for the backend connection, which is browser mode\'s own WebSocket', () => {
    const [b, e] = [directives(pageCsp(browser)), directives(pageCsp(ELECTRON_SHELL))];
    expect([...b.keys()]).toEqual([...e.keys()]);
    for (const [name, sources] of b) if (name !== 'connect-src') expect(e.get(name), name).toEqual(sources);
    expect(b.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:43210', 'ws://localhost:43210']);
    expect(e.get('connect-src')).toEqual(["'self'"]);
    // The headers besides the policy are the same, byte for byte.
    const strip = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'content-security-policy'));
    expect(strip(pageHeaders(browser, 'text/html; charset=utf-8'))).toEqual(strip(pageHeaders(ELECTRON_SHELL, 'text/html; charset=utf-8')));
  });

  it('allows a basemap\'s tiles and OpenLayers\' blob: worker, and nothing that runs or connects elsewhere', () => {
    for (const shell of [browser, ELECTRON_SHELL]) {
      const d = directives(pageCsp(shell));
      expect(d.get('img-src')).toEqual(["'self'", 'data:', 'blob:', ...BASEMAP_IMG_SOURCES]);
      expect(d.get('worker-src')).toEqual(['blob:']);
      for (const name of ['script-src', 'style-src', 'font-src']) expect(d.get(name), name).toEqual(["'self'"]);
      for (const name of ['default-src', 'base-uri', 'form-action', 'frame-ancestors', 'object-src']) expect(d.get(name), name).toEqual(["'none'"]);
      expect(pageCsp(shell)).not.toMatch(/unsafe/);
      expect([...d.values()].flat()).not.toContain('*');
      expect(d.get('connect-src')!.join(' ')).not.toMatch(/https?:/);
    }
    expect(pageDirectives(ELECTRON_SHELL)[0]).toEqual(['default-src', "'none'"]);
  });

  it('sends nosniff, no referrer, COOP, CORP, no framing and no stale copy with every page file', () => {
    expect(pageHeaders(ELECTRON_SHELL, 'text/javascript; charset=utf-8')).toEqual({
      'content-type': 'text/javascript; charset=utf-8', 'content-security-policy': pageCsp(ELECTRON_SHELL), 'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-resource-policy': 'same-origin',
      'x-frame-options': 'DENY', 'permissions-policy': PERMISSIONS_POLICY, 'cache-control': 'no-cache',
    });
  });

  it("lets a page ask for the location, for its own origin only, and for no other power; a bytes answer for none", () => {
    for (const shell of [browser, ELECTRON_SHELL]) {
      const policy = pageHeaders(shell, 'text/html; charset=utf-8')['permissions-policy']!;
      const features = new Map(policy.split(', ').map((f) => f.split('=') as [string, string]));
      expect(features.get('geolocation')).toBe('(self)');
      for (const [name, allow] of features) if (name !== 'geolocation') expect(allow, name).toBe('()');
      for (const name of ['camera', 'microphone', 'usb', 'serial', 'bluetooth', 'hid', 'payment', 'clipboard-read', 'display-capture']) expect(features.get(name), name).toBe('()');
    }
    const bytes = new Map(bytesPolicyHeaders()['permissions-policy']!.split(', ').map((f) => f.split('=') as [string, string]));
    expect([...bytes.values()].every((v) => v === '()')).toBe(true);
    expect(bytes.get('geolocation')).toBe('()');
  });

  it('makes bytes answers inert documents, never cached, the same in both shells', () => {
    const h = bytesPolicyHeaders();
    expect(h['content-security-policy']).toBe(BYTES_CSP);
    expect(BYTES_CSP).toContain('sandbox');
    expect(BYTES_CSP).toContain("default-src 'none'");
    expect(h['cache-control']).toBe('no-store');
    expect(h['x-content-type-options']).toBe('nosniff');
    expect(h['cross-origin-resource-policy']).toBe('same-origin');
  });
});

describe("the network rule (Electron's main enforces it; the browser enforces the CSP it mirrors)", () => {
  const electron = (url: string, resourceType = 'image') => allowsRequest(ELECTRON_SHELL, { url, resourceType });
  it("lets the app's own origin, data: and blob: through, whatever the type", () => {
    for (const type of ['mainFrame', 'script', 'stylesheet', 'xhr', 'image']) {
      expect(electron(`${APP_ORIGIN}/index.html`, type), type).toBe(true);
      expect(electron(`${APP_ORIGIN}/bytes/x`, type)).toBe(true);
    }
    expect(electron('data:image/png;base64,AAAA')).toBe(true);
    expect(electron('blob:app://furrow/0b0c', 'other')).toBe(true);
    expect(allowsRequest(browser, { url: 'http://localhost:43210/assets/a.js', resourceType: 'script' })).toBe(true);
  });

  it("lets a basemap's tiles through as images only, from exactly the CSP's img-src sources", () => {
    const tiles = ['https://tile.openstreetmap.org/3/4/2.png', 'http://127.0.0.1:8088/3/4/2.png', 'http://localhost/3/4/2.png'];
    for (const url of tiles) {
      expect(electron(url), url).toBe(true);
      // A tile address the Basemap setting accepts is one the rule lets through.
      expect(basemapUrlProblem(url.replace('/3/4/2.png', '/{z}/{x}/{y}.png'))).toBeNull();
      for (const type of ['xhr', 'script', 'stylesheet', 'mainFrame', 'subFrame', 'webSocket', 'font', 'media', 'other', 'ping']) expect(electron(url, type), `${type} ${url}`).toBe(false);
    }
    for (const url of ['http://tiles.example.org/3/4/2.png', 'http://[::1]:8088/1.png', 'https://user:pw@tiles.example.org/1.png', 'ftp://x.org/1.png', 'file:///etc/passwd', 'app://other/x.png', 'ws://127.0.0.1:1/', 'not a url']) {
      expect(electron(url), url).toBe(false);
    }
    expect(electron('app://user:pw@furrow/index.html', 'mainFrame')).toBe(false);
  });
});
