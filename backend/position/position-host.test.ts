// The host's position end to end, on a real mirror host process and the simulated receiver on 127.0.0.1: TCP, UDP
// and gpsd's protocol; a receiver dropping and coming back; the source remembered and connected again at the next
// start; the system's location; and a walk recorded, the host killed mid-walk, the walk finished after its restart.
import { afterEach, describe, expect, it } from 'vitest';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { API, API_EVENTS } from '../../core/api.ts';
import { createClient } from '../../core/rpc.ts';
import { pageSocket, wsPort } from '../../test/helpers/ws-port.ts';
import { join } from 'node:path';
import { ApiErrorCode } from '../../core/api-codes.ts';
import type { Fix } from '../../core/api-position.ts';
import { freePort } from '../../test/helpers/process.ts';
import { NmeaPlayer, simCycles } from '../../test/helpers/nmea-sim.ts';
import { sendNmeaUdp, serveGpsd, serveNmeaTcp } from '../../test/helpers/nmea-sim-servers.ts';
import { ACC, homeWithFarm, watchedHost } from './position.test-helpers.ts';
import { NEW_TARGETS_PER_MINUTE } from './target-limit.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });
const later = <T extends () => unknown>(f: T) => { cleanups.push(f); };

/** A fix that is one of the walk's positions (to 1e-8°, a millimetre). */
function onWalk(f: Fix | null | undefined, hz: number): boolean {
  if (!f) return false;
  return simCycles({ hz }).some((c) => Math.abs(c.point.lat - f.lat) < 1e-8 && Math.abs(c.point.lon - f.lon) < 1e-8);
}

describe('the host reads a receiver', () => {
  it('over TCP: fixes as events, a drop said in words and reconnected, and the source connected again at the next start', async () => {
    const { home } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    const player = new NmeaPlayer({ hz: 10, loop: true }).start();
    later(() => player.stop());
    const sim = await serveNmeaTcp(player);
    later(() => sim.close());
    const w = await watchedHost(home);
    later(() => w.h.close());
    const source = { kind: 'tcp' as const, host: '127.0.0.1', port: sim.port };
    const first = await w.h.api.positionConnect({ source });
    expect(first).toMatchObject({ source, status: expect.stringMatching(/connecting|connected/) });
    await expect.poll(() => w.last()?.fix?.quality, { timeout: 10_000 }).toBe('rtk-fixed');
    const state = await w.h.api.positionState({});
    expect(state).toMatchObject({ status: 'connected', message: null, inView: 12 });
    expect(onWalk(state.fix, 10)).toBe(true);
    expect(state.fix!.accuracy).toBeCloseTo(Math.hypot(0.012, 0.009), 9);
    // Remembered in FURROW_HOME, not the mirror; no path, no secret in it.
    expect(JSON.parse(readFileSync(join(home, 'position.json'), 'utf8'))).toEqual({ source });

    // The receiver drops the connection: said, then connected again by itself.
    const n = w.states.length;
    sim.dropClients();
    await expect.poll(() => w.states.slice(n).find((s) => s.status === 'reconnecting')?.message, { timeout: 5000 })
      .toMatch(/closed the connection: trying again in 1 s$/);
    await expect.poll(() => w.states.at(-1)?.status, { timeout: 10_000 }).toBe('connected');
    const m = w.states.length;
    await expect.poll(() => w.states.slice(m).filter((s) => s.fix).length, { timeout: 10_000 }).toBeGreaterThan(3);

    // The next start connects it again, unasked.
    await w.h.close();
    const again = await watchedHost(home);
    later(() => again.h.close());
    await expect.poll(async () => (await again.h.api.positionState({})).fix?.quality, { timeout: 10_000 }).toBe('rtk-fixed');
    expect((await again.h.api.positionState({})).source).toEqual(source);
    // Disconnected: forgotten.
    expect(await again.h.api.positionDisconnect({})).toEqual({ source: null, status: 'off', message: null, fix: null, inView: null });
    expect(existsSync(join(home, 'position.json'))).toBe(false);
  }, 60_000);

  it('over UDP and gpsd', async () => {
    const { home } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    const player = new NmeaPlayer({ hz: 10, loop: true }).start();
    later(() => player.stop());
    const w = await watchedHost(home);
    later(() => w.h.close());
    const port = await freePort();
    await w.h.api.positionConnect({ source: { kind: 'udp', port } });
    await expect.poll(() => w.last()?.status, { timeout: 5000 }).toBe('connected');
    const udp = sendNmeaUdp(player, port);
    later(() => udp.close());
    await expect.poll(() => w.last()?.fix?.quality, { timeout: 10_000 }).toBe('rtk-fixed');
    expect(onWalk(w.last()!.fix, 10)).toBe(true);
    udp.close();
    // Listening on every interface: a second listener on 127.0.0.1 for the same port is refused.
    const probe = createSocket('udp4');
    const err = await new Promise<NodeJS.ErrnoException | null>((r) => { probe.once('error', r); probe.bind(port, '127.0.0.1', () => r(null)); });
    probe.close();
    expect(err?.code).toBe('EADDRINUSE');

    const gpsd = await serveGpsd(player);
    later(() => gpsd.close());
    const source = { kind: 'gpsd' as const, host: '127.0.0.1', port: gpsd.port };
    await w.h.api.positionConnect({ source });
    await expect.poll(() => w.last()?.source?.kind === 'gpsd' && w.last()?.fix?.quality, { timeout: 10_000 }).toBe('rtk-fixed');
    const f = w.last()!.fix!;
    expect(onWalk(f, 10)).toBe(true);
    expect(f.accuracy).toBeCloseTo(Math.hypot(0.012, 0.009), 9);
    expect(w.last()!.inView).toBe(12);
  }, 60_000);

  it("takes the system's location only while it is the source; a port it does not list is not_found", async () => {
    const { home } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    const w = await watchedHost(home);
    later(() => w.h.close());
    const fix: Fix = { lon: 11.03, lat: 52.21, altitude: null, quality: 'system', satellites: null, hdop: null, accuracy: 12, heading: null, speed: null, time: '2026-11-29T09:00:00.000Z', received: 1 };
    // positionReport is the page's (backend/capabilities.test.ts): its refusal to the command line says so.
    await expect(w.h.api.positionReport({ fix })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(w.h.api.positionConnect({ source: { kind: 'serial', port: 'ab'.repeat(16), baud: 9600 } })).rejects.toMatchObject({ code: ApiErrorCode.notFound });
    expect(await w.h.api.positionConnect({ source: { kind: 'system' } })).toMatchObject({ status: 'connected', fix: null });
    const ports = await w.h.api.positionPorts({});
    for (const p of ports) expect(p.label).not.toMatch(/\/dev\//);
  }, 30_000);
});

describe('a page', () => {
  it("reports the system's location while 'system' is the source (refused otherwise, told to every session), and tries few new receivers a minute", async () => {
    const { home, farm } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    const renderer = mkdtempSync(join(tmpdir(), 'furrow-renderer-'));
    later(() => rmSync(renderer, { recursive: true, force: true }));
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Furrow</title>');
    const port = await freePort();
    const token = randomBytes(32).toString('base64url');
    const w = await watchedHost(home, { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: renderer }, { browserToken: token });
    later(() => w.h.close());
    const ws = await pageSocket(port, token);
    const page = createClient(API, wsPort(ws), API_EVENTS);
    later(() => { page.close(); ws.close(); });
    const pagePoints: number[] = [];
    page.on('trackPoint', (p) => pagePoints.push(p.index));
    const fix: Fix = { lon: 11.03, lat: 52.21, altitude: null, quality: 'system', satellites: null, hdop: null, accuracy: 12, heading: null, speed: null, time: '2026-11-29T09:00:00.000Z', received: 1 };
    await expect(page.api.positionReport({ fix })).rejects.toMatchObject({ code: ApiErrorCode.conflict });
    await page.api.positionConnect({ source: { kind: 'system' } });
    await page.api.trackStart({ account: ACC, farm, settings: { minDistance: 0, minInterval: 0, maxAccuracy: 20 } });
    expect(await page.api.positionReport({ fix })).toBeNull();
    // The host's clock, not the page's, dates its arrival; the parent's session is told too.
    await expect.poll(() => w.last()?.fix?.accuracy).toBe(12);
    expect(w.last()!.fix!.received).toBeGreaterThan(1);
    await expect.poll(() => pagePoints).toEqual([0]);
    expect(w.points.map((p) => p.point.quality)).toEqual(['system']);

    // A page has the host try at most NEW_TARGETS_PER_MINUTE new receivers on the network a minute, whichever its
    // session (a reload is a new one): a port scan from the page would go at 5 ports a minute. The command line is
    // the user's own, not limited; a receiver tried before is free.
    const again = createClient(API, wsPort(await pageSocket(port, token)), API_EVENTS);
    later(() => again.close());
    const tcp = (p: number) => ({ kind: 'tcp' as const, host: '127.0.0.1', port: p });
    for (let i = 0; i < NEW_TARGETS_PER_MINUTE; i++) await (i % 2 ? again : page).api.positionConnect({ source: tcp(40_000 + i) });
    await expect(again.api.positionConnect({ source: tcp(40_100) })).rejects.toMatchObject({ code: ApiErrorCode.tooManyTargets, message: expect.stringMatching(/^The app has tried 5 new receivers within a minute/) });
    await expect(page.api.positionConnect({ source: { kind: 'udp', port: 40_101 } })).rejects.toMatchObject({ code: ApiErrorCode.tooManyTargets });
    expect((await page.api.positionConnect({ source: { kind: 'gpsd', host: '127.0.0.1', port: 40_001 } })).source).toMatchObject({ kind: 'gpsd' });
    expect((await w.h.api.positionConnect({ source: tcp(40_100) })).source).toEqual(tcp(40_100));
    expect((await page.api.positionConnect({ source: { kind: 'system' } })).status).toBe('connected');
  }, 30_000);
});

describe('a walk', () => {
  it('is recorded by distance, survives the host killed mid-walk, and goes on after its restart', async () => {
    const { home, farm } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    const player = new NmeaPlayer({ hz: 10, speed: 6, loop: true }).start();
    later(() => player.stop());
    const sim = await serveNmeaTcp(player);
    later(() => sim.close());
    const w = await watchedHost(home);
    await w.h.api.positionConnect({ source: { kind: 'tcp', host: '127.0.0.1', port: sim.port } });
    await expect(w.h.api.trackPause({})).rejects.toMatchObject({ code: ApiErrorCode.conflict });
    await expect(w.h.api.trackStart({ account: ACC, farm: 'no-such-farm', settings: { minDistance: 2, minInterval: 0, maxAccuracy: 0.1 } })).rejects.toMatchObject({ code: ApiErrorCode.notFound });
    const t = await w.h.api.trackStart({ account: ACC, farm, settings: { minDistance: 2, minInterval: 0, maxAccuracy: 0.1 } });
    expect(t).toMatchObject({ account: ACC, farm, state: 'recording', points: [], dropped: 0 });
    await expect(w.h.api.trackStart({ account: ACC, farm, settings: t.settings })).rejects.toMatchObject({ code: ApiErrorCode.conflict });
    await expect.poll(() => w.points.length, { timeout: 15_000 }).toBeGreaterThan(5);
    // Each point at least 2 m from the one before (6 m/s at 10 Hz: every third or fourth fix).
    const kept = await w.h.api.trackCurrent({});
    expect(kept!.points.length).toBeGreaterThanOrEqual(w.points.length);
    expect(w.points.map((p) => p.index)).toEqual(w.points.map((_, i) => i));

    // Killed mid-walk: no chance to close anything.
    const seen = w.points.length;
    w.h.child.kill('SIGKILL');
    await new Promise((r) => w.h.child.once('exit', r));
    const again = await watchedHost(home);
    later(() => again.h.close());
    const back = (await again.h.api.trackCurrent({}))!;
    expect(back.id).toBe(t.id);
    expect(back.state).toBe('recording');
    expect(back.points.length).toBeGreaterThanOrEqual(seen);
    // The source came back with the host, and the walk goes on from where it was.
    await expect.poll(() => again.points.length, { timeout: 15_000 }).toBeGreaterThan(3);
    expect(again.points[0]!.index).toBeGreaterThanOrEqual(back.points.length);

    const paused = await again.h.api.trackPause({});
    expect(paused.state).toBe('paused');
    const at = (await again.h.api.trackCurrent({}))!.points.length;
    await new Promise((r) => setTimeout(r, 500));
    expect((await again.h.api.trackCurrent({}))!.points.length).toBe(at);
    expect((await again.h.api.trackResume({})).state).toBe('recording');
    expect(await again.h.api.trackDiscard({})).toBeNull();
    expect(await again.h.api.trackCurrent({})).toBeNull();
    expect(existsSync(join(home, 'track.jsonl'))).toBe(false);
  }, 90_000);

  it('drops fixes worse than the threshold and counts them', async () => {
    const { home, farm } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    // RTK float (σ 0.25 and 0.2 m: 0.32 m) throughout, against a 0.1 m threshold.
    const player = new NmeaPlayer({ hz: 10, loop: true, fixes: [[0, 5]] }).start();
    later(() => player.stop());
    const sim = await serveNmeaTcp(player);
    later(() => sim.close());
    const w = await watchedHost(home);
    later(() => w.h.close());
    await w.h.api.positionConnect({ source: { kind: 'tcp', host: '127.0.0.1', port: sim.port } });
    await w.h.api.trackStart({ account: ACC, farm, settings: { minDistance: 0, minInterval: 0, maxAccuracy: 0.1 } });
    await expect.poll(async () => (await w.h.api.trackCurrent({}))!.dropped, { timeout: 10_000 }).toBeGreaterThan(10);
    expect((await w.h.api.trackCurrent({}))!.points).toEqual([]);
  }, 30_000);
});
