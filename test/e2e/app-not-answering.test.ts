// A service that hangs, end to end (`npm start`'s launcher with the embedded demo service, the real host, Debian's
// Chromium): the embedded service killed and a server on its address that accepts connections and never answers; a
// sync then says "Not answering" in the status line once the client's timeout (FURROW_HTTP_TIMEOUT_MS) has passed,
// while the run still retries — it read "Online" for minutes — and the run's end says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { openApp, processesOf, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { HOST_ENV } from '../helpers/host.ts';

const TIMEOUT_MS = 1500;
let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;
let hung: Server | null = null;
const sockets: Socket[] = [];

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-not-answering-', { ...HOST_ENV, FURROW_HTTP_TIMEOUT_MS: String(TIMEOUT_MS) });
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => (hung ? hung.close(r) : r(null)));
  await ctx?.stop();
});

const refused = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(false); });
  s.once('error', () => resolve(true));
});

describe('a service that accepts connections and never answers', () => {
  it('reads "Not answering" once the client timeout has passed, not "Online"', async () => {
    await waitOnline(page);
    // The embedded service (the launcher's child running `serve`) gone, by its id; a hung server on its address.
    const port = Number(new URL(ctx.service).port);
    const service = processesOf(ctx.dir).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes('serve'));
    expect(service).toHaveLength(1);
    process.kill(service[0]!, 'SIGKILL');
    await expect.poll(() => refused(port), { timeout: 10_000 }).toBe(true);
    hung = createServer((s) => { sockets.push(s); s.resume(); });
    await new Promise<void>((r) => hung!.listen(port, '127.0.0.1', r));

    const status = page.getByRole('status', { name: 'Connection' });
    const started = Date.now();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('Not answering');
    const after = Date.now() - started;
    expect(after).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    // The run's end says why (it gave up within FURROW_MAX_WAIT_MS), and the status still reads so.
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent(), { timeout: 20_000 })
      .toMatch(new RegExp(`^Not answering: .* once the service answers: http://127\\.0\\.0\\.1:${port} accepts connections but is not answering \\(no answer in time\\)\\.$`));
    expect(await status.textContent()).toBe('Not answering');
    expect(await problems()).toEqual([]);
  }, 60_000);
});
