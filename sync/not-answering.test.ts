// A service that accepts connections and never answers (hung, overloaded), on 127.0.0.1: once the client's timeout
// has passed, the run's progress says the service is not answering (the app's status reads so, not "Online", while the
// run goes on retrying), and so does its report; one that refuses connections
// is unreachable, not "not answering".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { ServiceClient } from './http.ts';
import { SyncEngine } from './engine.ts';
import type { ProgressEvent } from './progress.ts';
import { freePort } from '../test/helpers/process.ts';
import { summarizeRun } from '../cli/summary.ts';

let dir: string;
let mirror: Mirror;
let hung: Server;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-not-answering-'));
  mirror = Mirror.open(join(dir, 'mirror.db'));
  // Reads every request and answers none.
  hung = createServer((s) => { sockets.push(s); s.resume(); });
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(hung.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => hung?.close(r));
  mirror?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const TIMEOUT_MS = 300;

/** A run over `service` with the client's timeout short, its events kept with when they came. */
async function run(service: string, account: string) {
  mirror.write.addAccount({ id: account, service_url: service, mode: 'api_key' });
  const events: (ProgressEvent & { at: number })[] = [];
  const t0 = Date.now();
  const engine = new SyncEngine(mirror, (a) => new ServiceClient({ baseUrl: a.service_url, accountId: a.id, timeoutMs: TIMEOUT_MS, credentials: { mode: 'api_key', apiKey: 'k' } }), {
    settleMs: 200, backoffBaseMs: 20, backoffCapMs: 100, maxWaitMs: 1200, connectRetryBaseMs: 20, onProgress: (e) => events.push({ ...e, at: Date.now() - t0 }),
  });
  const [report] = (await engine.sync({ accounts: [account] })).accounts;
  return { report: report!, events, took: Date.now() - t0 };
}

describe('a service that accepts connections and never answers', () => {
  it('is said not to be answering once the client timeout has passed, during the run and in its report', async () => {
    const { report, events, took } = await run(url, 'acc-hung');
    const first = events.find((e) => e.notAnswering);
    expect(first, JSON.stringify(events)).toBeDefined();
    expect(first!.notAnswering).toBe(`${url} accepts connections but is not answering (no answer in time)`);
    // Not before the timeout; and said long before the run gives up.
    expect(first!.at).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(first!.at).toBeLessThan(took - TIMEOUT_MS);
    expect(first!.message).toBe(first!.notAnswering);
    // Every event after it says so too, its last one ('done') included.
    expect(events.slice(events.indexOf(first!)).every((e) => e.notAnswering)).toBe(true);
    expect(report).toMatchObject({ unreachable: null, notAnswering: first!.notAnswering, synced: false });
    // The command line says it the same way, first, instead of the timeout as an error.
    const cli = summarizeRun({ accounts: [report] }, mirror);
    expect(cli.exit).toBe(1);
    expect(cli.err).toEqual([expect.stringMatching(new RegExp(`^acc-hung: ${url.replace(/[.]/g, '\\.')} accepts connections but is not answering \\(no answer in time\\)\\. 0 changes acknowledged by the service\\..* Run sync again once it answers\\.$`))]);
  });

  it('is unreachable, not "not answering", when it refuses connections', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { report, events } = await run(closed, 'acc-closed');
    expect(report.unreachable).toMatch(/connection refused/);
    expect(report.notAnswering).toBeUndefined();
    expect(events.some((e) => e.notAnswering)).toBe(false);
  });
});
