// A hostile or broken receiver against the real host, over real TCP on 127.0.0.1: line noise, a line of 100 MB
// without an end, and sentences at 100 Hz. Correctness only — the host still parses afterwards, its memory does not
// grow with the stream, its events stay thinned and it answers other calls; how fast it answers is bench/position.ts's.
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { API_VERSION } from '../../core/api-codes.ts';
import { cycleSentences, simCycles } from '../../test/helpers/nmea-sim.ts';
import { homeWithFarm, watchedHost } from './position.test-helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

/** The host's resident memory (kB), from /proc. */
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** A TCP "receiver" the test writes to by hand: the socket of the host's connection. */
async function receiver(): Promise<{ port: number; socket: Promise<Socket> }> {
  let give!: (s: Socket) => void;
  const socket = new Promise<Socket>((r) => { give = r; });
  const server = createServer((s) => { s.on('error', () => {}); give(s); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(async () => { (await Promise.race([socket, null]))?.destroy(); await new Promise((r) => server.close(r)); });
  return { port: (server.address() as { port: number }).port, socket };
}

/** Writes `data` and waits until the socket took it all. */
const write = (s: Socket, data: string | Buffer) => new Promise<void>((r) => { if (s.write(data)) r(); else s.once('drain', () => r()); });

/** A host of its own connected over TCP to a receiver the test writes to: the host and the receiver's socket. */
async function hostOnReceiver() {
  const { home } = homeWithFarm();
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const w = await watchedHost(home);
  cleanups.push(() => w.h.close());
  const r = await receiver();
  await w.h.api.positionConnect({ source: { kind: 'tcp', host: '127.0.0.1', port: r.port } });
  return { w, s: await r.socket };
}

describe('a receiver gone wrong', () => {
  it('noise and a 100 MB line: the host reads the sentences after them, its memory flat', async () => {
    const { w, s } = await hostOnReceiver();
    const cycles = simCycles({ hz: 5 });
    const send = async (from: number, n: number) => { for (const c of cycles.slice(from, from + n)) await write(s, c.text); };

    await send(0, 3);
    await expect.poll(() => w.last()?.fix?.time, { timeout: 5000 }).toBe(new Date(cycles[2]!.time).toISOString());
    // Line noise: random bytes, NULs, CRs and $ among them.
    for (let i = 0; i < 16; i++) await write(s, randomBytes(64 * 1024));
    await write(s, '\r\n');
    await send(3, 3);
    await expect.poll(() => w.last()?.fix?.time, { timeout: 5000 }).toBe(new Date(cycles[5]!.time).toISOString());

    // 100 MB with no line end and no $: kept, it would be 100 MB of the host's memory (more, as a string).
    const before = rssKb(w.h.pid);
    const mb = Buffer.alloc(1024 * 1024, 'A');
    for (let i = 0; i < 100; i++) await write(s, mb);
    await write(s, '\r\n');
    await send(6, 3);
    await expect.poll(() => w.last()?.fix?.time, { timeout: 20_000 }).toBe(new Date(cycles[8]!.time).toISOString());
    expect(w.last()!.status).toBe('connected');
    // Socket buffers and the collector's slack, not the line: far under the 100 MB sent.
    expect(rssKb(w.h.pid) - before).toBeLessThan(40 * 1024);
    expect(await w.h.api.hello({ apiVersion: API_VERSION })).toMatchObject({ pid: w.h.pid });
  }, 60_000);

  it('sentences at 100 Hz: every cycle read, at most 20 events a second, other calls answered meanwhile', async () => {
    // The host's connection is accepted (hostOnReceiver): it is told 'connected' at the first position (connection.ts).
    const { w, s } = await hostOnReceiver();
    const walk = simCycles({ hz: 100, speed: 1.4 });
    const n0 = w.states.length;
    const t0 = performance.now();
    let answered = 0;
    const SECONDS = 3;
    for (let i = 0; i < SECONDS * 100; i++) {
      const c = walk[i]!;
      await write(s, cycleSentences(c.point, c.time, 4).map((x) => `${x}\r\n`).join(''));
      if (i % 10 === 0) void w.h.api.positionState({}).then(() => answered++);
      const due = t0 + (i + 1) * 10;
      await new Promise((res) => setTimeout(res, Math.max(0, due - performance.now())));
    }
    const elapsed = (performance.now() - t0) / 1000;
    // The last cycle is read (nothing queued behind it), and told.
    const last = new Date(walk[SECONDS * 100 - 1]!.time).toISOString();
    await expect.poll(() => w.last()?.fix?.time, { timeout: 5000 }).toBe(last);
    const events = w.states.length - n0;
    expect(events).toBeGreaterThan(10);
    expect(events).toBeLessThanOrEqual(Math.ceil(elapsed * 20) + 2);
    await expect.poll(() => answered).toBe(SECONDS * 10);
  }, 60_000);
});
