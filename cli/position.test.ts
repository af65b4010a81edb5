// `position` from the command line, in process against the simulated receiver on 127.0.0.1: fixes printed as JSON
// lines (NMEA over TCP, gpsd), the ports listed without a path, and bad usage refused.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './main.ts';
import { NmeaPlayer, simCycles } from '../test/helpers/nmea-sim.ts';
import { serveGpsd, serveNmeaTcp } from '../test/helpers/nmea-sim-servers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

async function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'furrow-cli-position-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  let stdout = '', stderr = '';
  const status = await runCli(args, { env: { FURROW_HOME: home }, stdout: { write: (x: string) => { stdout += x; } }, stderr: { write: (x: string) => { stderr += x; } } });
  return { status, stdout, stderr };
}

const walk = simCycles({ hz: 10 });
const onWalk = (f: { lat: number; lon: number }) => walk.some((c) => Math.abs(c.point.lat - f.lat) < 1e-8 && Math.abs(c.point.lon - f.lon) < 1e-8);

describe('position', () => {
  it('watch --tcp prints each fix as a JSON line, and stops after --count', async () => {
    const player = new NmeaPlayer({ hz: 10, loop: true }).start();
    const sim = await serveNmeaTcp(player);
    cleanups.push(() => player.stop(), () => sim.close());
    const r = await cli(['position', 'watch', '--tcp', `127.0.0.1:${sim.port}`, '--count', '3']);
    expect(r.status, r.stderr).toBe(0);
    const fixes = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { lat: number; lon: number; quality: string; inView: number });
    expect(fixes).toHaveLength(3);
    for (const f of fixes) expect([onWalk(f), f.quality, f.inView]).toEqual([true, 'rtk-fixed', 12]);
    expect(r.stderr).toMatch(/TCP 127\.0\.0\.1:\d+: connected/);
  });
  it('watch --gpsd reads gpsd', async () => {
    const player = new NmeaPlayer({ hz: 10, loop: true }).start();
    const g = await serveGpsd(player);
    cleanups.push(() => player.stop(), () => g.close());
    const r = await cli(['position', 'watch', '--gpsd', `127.0.0.1:${g.port}`, '--count', '2']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => onWalk(JSON.parse(l) as { lat: number; lon: number }))).toEqual([true, true]);
  });
  it('ports lists ids and labels; bad usage is refused', async () => {
    const ports = await cli(['position', 'ports']);
    expect(ports.status).toBe(0);
    for (const p of JSON.parse(ports.stdout) as { id: string; label: string }[]) expect(Object.keys(p)).toEqual(['id', 'label']);
    expect((await cli(['position', 'watch'])).status).toBe(2);
    expect((await cli(['position', 'watch', '--tcp', 'nohost'])).stderr).toMatch(/--tcp wants HOST:PORT/);
    expect((await cli(['position', 'watch', '--serial', '/dev/ttyS0', '--baud', '1234'])).status).toBe(2);
    expect((await cli(['position', 'fly'])).status).toBe(2);
  });
});
