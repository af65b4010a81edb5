// Position in process, against the simulated receiver on 127.0.0.1: 'position' events thinned to 20 a second from a
// 100 Hz receiver, the system's location taken only while chosen (and stamped with the host's clock), a receiver gone
// silent said so and reconnected, and a target that never sent a position told uniformly (no port-scanning oracle).
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiErrorCode } from '../../core/api-codes.ts';
import type { Fix, PositionState, TrackPoint } from '../../core/api-position.ts';
import { TrackFile } from './track-file.ts';
import { cycleSentences, NmeaPlayer, simCycles } from '../../test/helpers/nmea-sim.ts';
import { serveNmeaTcp } from '../../test/helpers/nmea-sim-servers.ts';
import { EVENT_GAP_MS, Position } from './position.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

function position(opts: ConstructorParameters<typeof Position>[2] = {}) {
  const home = mkdtempSync(join(tmpdir(), 'furrow-position-'));
  const events: { at: number; state: PositionState }[] = [];
  const points: TrackPoint[] = [];
  const p = new Position(home, { position: (state) => events.push({ at: performance.now(), state }), trackPoint: (t) => points.push(t) }, opts);
  cleanups.push(() => rmSync(home, { recursive: true, force: true }), () => p.close());
  return { p, events, points, home };
}

describe('Position', () => {
  it('thins a 100 Hz receiver to at most 20 events a second, the latest fix each time', async () => {
    const player = new NmeaPlayer({ hz: 100, speed: 1.4, loop: true });
    const sim = await serveNmeaTcp(player);
    cleanups.push(() => sim.close(), () => player.stop());
    const { p, events } = position();
    await p.connect({ kind: 'tcp', host: '127.0.0.1', port: sim.port });
    await expect.poll(() => sim.clients()).toBe(1);
    player.start();
    await new Promise((r) => setTimeout(r, 2000));
    const fixes = events.filter((e) => e.state.fix);
    expect(fixes.length).toBeGreaterThan(20);
    expect(fixes.length).toBeLessThanOrEqual(42);
    for (let i = 1; i < events.length; i++) expect(events[i]!.at - events[i - 1]!.at).toBeGreaterThanOrEqual(EVENT_GAP_MS - 2);
    // Not queued: the last event is the receiver's latest cycle (100 a second were read).
    expect(p.counts()!.lines).toBeGreaterThan(1000);
  }, 20_000);

  it("tells a receiver's no fix where it last was, with quality 'none' and nothing else of the fix, and the walk takes none of it", async () => {
    const cycles = simCycles({ hz: 5 }).slice(0, 6);
    const text = cycles.map((c, i) => (i < 3 ? c.text : cycleSentences(c.point, c.time, 0).map((x) => `${x}\r\n`).join(''))).join('');
    const server = createServer((s) => { s.on('error', () => {}); s.end(text, 'latin1'); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const { p } = position();
    await p.connect({ kind: 'tcp', host: '127.0.0.1', port: (server.address() as { port: number }).port });
    await expect.poll(() => p.current().fix?.quality, { timeout: 5000 }).toBe('none');
    const { lon, lat } = cycles[2]!.point;
    // Where it last was, to NMEA's 1e-7 minutes.
    expect(p.current().fix!.lon).toBeCloseTo(lon, 8);
    expect(p.current().fix!.lat).toBeCloseTo(lat, 8);
    expect(p.current().fix).toMatchObject({ quality: 'none', satellites: null, hdop: null, accuracy: null, heading: null, speed: null, time: new Date(cycles[2]!.time).toISOString() });
  });

  it("carries a walk over a receiver's silence of minutes (a laptop's sleep): said, tried again at the longest wait, the walk taken up where it was", async () => {
    // The host's waits scaled down 50 times (silence 10 s → 200 ms; the longest wait 30 s → 400 ms after 50, 100,
    // 200): the 3 s of silence below are 2.5 minutes of the app's, the longest wait reached several times over.
    const player = new NmeaPlayer({ hz: 10, speed: 6, loop: true });
    const sim = await serveNmeaTcp(player);
    cleanups.push(() => sim.close(), () => player.stop());
    const { p, events, points, home } = position({ silenceMs: 200, backoffMs: [50, 100, 200, 400] });
    await p.connect({ kind: 'tcp', host: '127.0.0.1', port: sim.port });
    await expect.poll(() => sim.clients()).toBe(1);
    const walk = p.track.start('acc-sleep', 'farm-sleep', { minDistance: 1, minInterval: 0, maxAccuracy: null });
    player.start();
    await expect.poll(() => points.length, { timeout: 5000 }).toBeGreaterThan(5);

    player.pause();
    const silentFrom = Date.now();
    const before = points.length;
    const n = events.length;
    await new Promise((r) => setTimeout(r, 3000));
    const said = events.slice(n).map((e) => e.state.message).filter((m): m is string => m !== null);
    expect(said[0]).toBe('The receiver sent no position for 200 ms: trying again in 50 ms');
    expect(said.filter((m) => m.endsWith('trying again in 400 ms')).length).toBeGreaterThan(2);
    // Nothing walked from nothing; the last fix keeps its age (the page's "Stale", past 5 s).
    expect(points.length).toBe(before);
    expect(p.current().fix!.received).toBeLessThanOrEqual(silentFrom);

    player.resume();
    const resumed = Date.now();
    await expect.poll(() => points.length, { timeout: 5000 }).toBeGreaterThan(before + 5);
    // Back within the longest wait and a silence (and a cycle or two): the next try finds it.
    expect(points[before]!.point.received - resumed).toBeLessThan(400 + 200 + 300);
    expect(p.current().status).toBe('connected');
    // The same walk, its points numbered on, all of them kept in FURROW_HOME.
    expect(points.every((pt) => pt.track === walk.id)).toBe(true);
    expect(points.map((pt) => pt.index)).toEqual(points.map((_, i) => i));
    p.track.flush();
    expect(new TrackFile(home).read()!.points.length).toBe(p.track.current()!.points.length);
  }, 20_000);

  it("takes the system's location only while it is the source, on the host's clock", async () => {
    const { p, events } = position();
    const fix: Fix = { lon: 11.03, lat: 52.21, altitude: null, quality: 'system', satellites: null, hdop: null, accuracy: 12, heading: null, speed: null, time: '2026-11-29T09:00:00.000Z', received: 1 };
    expect(() => p.report(fix)).toThrow(expect.objectContaining({ code: ApiErrorCode.conflict }));
    await p.connect({ kind: 'system' });
    const before = Date.now();
    p.report(fix);
    expect(p.current()).toMatchObject({ status: 'connected', fix: { ...fix, received: expect.any(Number) } });
    expect(p.current().fix!.received).toBeGreaterThanOrEqual(before);
    await expect.poll(() => events.at(-1)?.state.fix?.accuracy).toBe(12);
  });

  it('says a receiver that went silent stopped, and connects again', async () => {
    // A receiver that sends its first fixes and then nothing (a half-open link, a receiver hung).
    const sockets = new Set<Socket>();
    let connections = 0;
    const first = simCycles({ hz: 5 }).slice(0, 2).map((c) => c.text).join('');
    const server = createServer((s) => { connections++; sockets.add(s); s.on('error', () => {}); s.write(first, 'latin1'); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => { for (const s of sockets) s.destroy(); return new Promise((r) => server.close(r)); });
    const { p, events } = position({ silenceMs: 300, backoffMs: [100] });
    await p.connect({ kind: 'tcp', host: '127.0.0.1', port: (server.address() as { port: number }).port });
    await expect.poll(() => events.map((e) => e.state.message).find((m) => m?.startsWith('The receiver sent no position')), { timeout: 5000 })
      .toBe('The receiver sent no position for 300 ms: trying again in 100 ms');
    await expect.poll(() => connections, { timeout: 5000 }).toBeGreaterThan(1);
  });

  it('tells a port scanner nothing: a port refused, a port open but silent, and one speaking no NMEA end alike, at the same time', async () => {
    const HOLD = 600;
    // Refused: a port nothing listens on.
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', () => r()));
    const refused = (gone.address() as { port: number }).port;
    await new Promise((r) => gone.close(r));
    // Open, and silent (an SSH server waiting for its client would be), or open and speaking something else.
    const sockets = new Set<Socket>();
    const open = (greeting: string) => {
      const server = createServer((s) => { sockets.add(s); s.on('error', () => {}); if (greeting) s.write(greeting); });
      cleanups.push(() => { for (const s of sockets) s.destroy(); return new Promise((r) => server.close(r)); });
      return new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
    };
    const silent = await open('');
    const http = await open('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    const told: { words: string; ms: number; statuses: string[] }[] = [];
    const logged: string[] = [];
    for (const port of [refused, silent, http]) {
      const { p, events } = position({ silenceMs: HOLD, backoffMs: [60_000], log: (l) => logged.push(l) });
      const t0 = performance.now();
      await p.connect({ kind: 'tcp', host: '127.0.0.1', port });
      await expect.poll(() => events.some((e) => e.state.status === 'reconnecting'), { timeout: 5000 }).toBe(true);
      const end = events.find((e) => e.state.status === 'reconnecting')!;
      told.push({ words: end.state.message!.replace(`:${port} `, ':PORT '), ms: end.at - t0, statuses: events.map((e) => e.state.status) });
    }
    const words = 'No position came from 127.0.0.1:PORT within 600 ms: nothing answered there, or what answered sent no NMEA. Is the receiver (or the app sharing its position) on and sharing NMEA, and are its address and port right? Trying again in 60 s';
    for (const t of told) {
      expect(t.words).toBe(words);
      // Never "connected": an open port is not told apart from a closed one.
      expect([...new Set(t.statuses)]).toEqual(['connecting', 'reconnecting']);
      // At the try's end, whatever happened when: the refusal came at once, and was held.
      expect(t.ms).toBeGreaterThanOrEqual(HOLD - 5);
      expect(t.ms).toBeLessThan(HOLD + 250);
    }
    // The user reads what happened in the host's log.
    expect(logged.join('')).toMatch(/Position: tcp 127\.0\.0\.1:\d+: Nothing answers at/);
    expect(logged.join('')).toMatch(/Position: tcp 127\.0\.0\.1:\d+: the connection was open, but no position came within 600 ms/);
  });

  it('fails for good on a UDP port taken', async () => {
    const taken = position({ udpBind: '127.0.0.1' });
    const s = createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
    cleanups.push(() => s.close());
    await taken.p.connect({ kind: 'udp', port: s.address().port });
    await expect.poll(() => taken.p.current().status).toBe('failed');
    expect(taken.p.current().message).toMatch(/Another program already listens on UDP port/);
  });
});
