// The serial path for real: a pseudo-terminal pair (socat) stands for a receiver on a USB port — the simulator writes
// NMEA into one end, the host reads the other as a serial port — and is "unplugged" by stopping socat. Then the real
// gpsd (Debian's) reads such a port, and the host reads gpsd: gpsd is the referee of what the simulator sends and of
// the host's gpsd client. Every process started here is stopped by its pid.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/helpers/process.ts';
import { NmeaPlayer, simCycles } from '../../test/helpers/nmea-sim.ts';
import { writeNmeaTo } from '../../test/helpers/nmea-sim-servers.ts';
import type { Fix } from '../../core/api-position.ts';
import { homeWithFarm, watchedHost } from './position.test-helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });
const later = (f: () => unknown) => { cleanups.push(f); };

/**
 * Stops a child and waits for it to exit: SIGTERM, then SIGKILL after 2 s (a socat whose pty the host still held
 * once outlived SIGTERM, and the test's clean-up waited for it for ever).
 */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(kill);
}

/** A pseudo-terminal pair linked at `a` and `b`: what one end is written, the other reads. */
async function ptyPair(a: string, b: string): Promise<ChildProcess> {
  const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], { stdio: 'ignore' });
  later(() => stop(child));
  await expect.poll(() => existsSync(a) && existsSync(b), { timeout: 5000 }).toBe(true);
  return child;
}

function onWalk(f: Fix | null | undefined): boolean {
  return !!f && simCycles({ hz: 10 }).some((c) => Math.abs(c.point.lat - f.lat) < 1e-8 && Math.abs(c.point.lon - f.lon) < 1e-8);
}

const dir = () => { const d = mkdtempSync(join(tmpdir(), 'furrow-pty-')); later(() => rmSync(d, { recursive: true, force: true })); return d; };

describe('a receiver on a serial port', () => {
  it('is read by the host, named to the page by an id, and connected again after it was unplugged', async () => {
    const d = dir();
    const [receiver, port] = [join(d, 'receiver'), join(d, 'ttyACM7')];
    let socat = await ptyPair(receiver, port);
    const { home } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    const w = await watchedHost(home);
    later(() => w.h.close());
    const player = new NmeaPlayer({ hz: 10, loop: true }).start();
    later(() => player.stop());
    let writer = writeNmeaTo(player, receiver);
    later(() => writer.close());

    const state = await w.h.api.positionConnectPath({ path: port, baud: 38400 });
    expect(state.source).toEqual({ kind: 'serial', port: expect.stringMatching(/^[0-9a-f]{32}$/), baud: 38400 });
    const id = (state.source as { port: string }).port;
    await expect.poll(() => w.last()?.fix?.quality, { timeout: 10_000 }).toBe('rtk-fixed');
    expect(onWalk(w.last()!.fix)).toBe(true);
    // The page sees the id and the device's name, never its path.
    const listed = (await w.h.api.positionPorts({})).find((p) => p.id === id);
    expect(listed).toEqual({ id, label: 'ttyACM7' });
    expect(JSON.stringify(w.states)).not.toContain(d);

    // Unplugged: socat gone, the pty with it.
    writer.close();
    await stop(socat);
    // A USB receiver unplugged makes the port fail at once; a pseudo-terminal's hang-up is not seen by serialport's
    // poller, so here it is the silence that tells (10 s without a fix).
    await expect.poll(() => w.last()?.status, { timeout: 20_000 }).toBe('reconnecting');
    expect(w.last()!.message).toMatch(/^(ttyACM7 (was unplugged|was closed|is not there)|The receiver sent no position for 10 s): trying again in 1 s$/);
    expect(w.last()!.message).not.toContain(d);
    // Plugged in again, at the same path.
    socat = await ptyPair(receiver, port);
    writer = writeNmeaTo(player, receiver);
    const n = w.states.length;
    await expect.poll(() => w.states.slice(n).filter((s) => s.status === 'connected' && s.fix).length, { timeout: 30_000 }).toBeGreaterThan(3);
    // The same id for the same path: the remembered choice still names it.
    expect((await w.h.api.positionState({})).source).toEqual(state.source);

    // A device that is not there: said by its name, tried again, its path never in the words.
    await w.h.api.positionConnectPath({ path: join(d, 'rfcomm0'), baud: 9600 });
    await expect.poll(() => w.last()?.message, { timeout: 10_000 }).toMatch(/^rfcomm0 (is not there: is the receiver plugged in\? Trying|: .*: trying) again in 1 s$/);
    expect(w.last()!.message).not.toContain(d);
  }, 60_000);

  it("through the real gpsd: gpsd reads the port, the host reads gpsd, the simulator's walk and GST's accuracy come out", async () => {
    const d = dir();
    const [receiver, port] = [join(d, 'receiver'), join(d, 'ttyUSB3')];
    await ptyPair(receiver, port);
    const gpsdPort = await freePort();
    // -N foreground, -n poll the device without a client, -b read only (no probes written to the "receiver").
    const gpsd = spawn('gpsd', ['-N', '-n', '-b', '-S', String(gpsdPort), '-F', join(d, 'gpsd.sock'), port], { stdio: 'ignore' });
    later(() => stop(gpsd));
    const player = new NmeaPlayer({ hz: 10, loop: true }).start();
    later(() => player.stop());
    const writer = writeNmeaTo(player, receiver);
    later(() => writer.close());
    const { home } = homeWithFarm();
    later(() => rmSync(home, { recursive: true, force: true }));
    const w = await watchedHost(home);
    later(() => w.h.close());
    await w.h.api.positionConnect({ source: { kind: 'gpsd', host: '127.0.0.1', port: gpsdPort } });
    // gpsd may take a moment to start listening: the host retries by itself.
    await expect.poll(() => w.states.filter((s) => s.fix?.accuracy !== undefined && s.fix !== null && s.fix.accuracy !== null && s.fix.accuracy < 0.1).length, { timeout: 30_000 }).toBeGreaterThan(3);
    const f = w.states.filter((s) => s.fix).at(-1)!.fix!;
    expect(onWalk(f)).toBe(true);
    // gpsd's TPV status 3 is RTK fixed; GST (after the TPV, in gpsd 3.22) gives the receiver's own error estimate.
    expect(f.quality).toBe('rtk-fixed');
    expect(f.accuracy).toBeCloseTo(Math.hypot(0.012, 0.009), 6);
    expect(f.altitude).toBeCloseTo(81.3, 6);
    expect(f.speed).toBeCloseTo(1.4, 2);
    expect(w.last()!.inView).toBe(12);
  }, 60_000);
});
