// The app in browser mode on a mirror that already exists (no demo service, no connect, no pull): the mirror host
// with its browser server on a free loopback port, serving the built renderer. What bench/map.ts and
// test/e2e/map-scale.test.ts start on their generated mirrors; app/start.ts does the same after its demo setup.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { launchHost, type Host } from '../../backend/launch.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { freePort } from '../../platform/node/free-port.ts';

export interface BrowserApp {
  host: Host;
  /** The address to open, with the token and the account to show in its fragment. */
  url: string;
  close(): Promise<void>;
}

/**
 * A copy of `mirrorFile` becomes the mirror of a new FURROW_HOME (a copy, not a link: the app's start-up sync
 * attempt writes to it, and the cached file must stay as built), and the host serves it to the browser.
 */
export async function startBrowserApp(mirrorFile: string, account: string, env: NodeJS.ProcessEnv = {}): Promise<BrowserApp> {
  const renderer = await ensureRenderer();
  const home = mkdtempSync(join(tmpdir(), 'furrow-browser-app-'));
  copyFileSync(mirrorFile, join(home, 'mirror.db'));
  const token = randomBytes(32).toString('base64url');
  const port = await freePort();
  const host = await launchHost({ home, env: { ...env, FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: renderer }, secrets: { browserToken: token } });
  // The host answers `hello` before its browser server listens.
  for (let i = 0; i < 200 && !(await fetch(`http://127.0.0.1:${port}/`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 50));
  return {
    host,
    url: `http://127.0.0.1:${port}/#token=${token}&account=${encodeURIComponent(account)}`,
    async close() {
      await host.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
