// `position` from the command line, in process against the simulated receiver on 127.0.0.1: fixes printed as JSON
// lines (NMEA over TCP, gpsd), the ports listed without a path, and bad usage refused.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './main.ts';
import { NmeaPlayer, simCycles } from '../test/helpers/nmea-sim.ts';
import { serveGpsd, serveNmeaTcp } from '../test/helpers/nmea-sim-servers.ts';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort, ROOT } from '../test/helpers/process.ts';

/** The README's shell lines starting with `prefix`, their comments cut. */
const readmeLines = (prefix: string) => [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.split('\n')).filter((l) => l.startsWith(prefix)).map((l) => l.replace(/\s+#.*$/, ''));

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

  it("runs as the README writes it: the simulator on TCP, and watch printing its fixes", async () => {
    const [sim] = readmeLines('npm run -s gnss-sim -- ');
    const [watch] = readmeLines('npm run -s cli -- position watch ');
    expect(sim).toMatch(/--tcp 10110$/);
    expect(watch).toMatch(/--tcp 127\.0\.0\.1:10110 --count 5$/);
    // Port 10110 as written, unless this computer has it taken: then another.
    const port = String(await freePort());
    const child = spawn('sh', ['-c', `exec ${sim!.replace('10110', port)}`], { cwd: ROOT, stdio: 'ignore', detached: true });
    cleanups.push(() => { try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ } });
    await expect.poll(() => new Promise((r) => { const c = connect(Number(port), '127.0.0.1', () => { c.destroy(); r(true); }).on('error', () => r(false)); }), { timeout: 30_000 }).toBe(true);
    // The CLI's folder a fresh one, not this user's own (~/.local/share/furrow), which another checkout may have moved
    // to a newer schema than this one's.
    const home = mkdtempSync(join(tmpdir(), 'furrow-cli-position-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const env = { ...process.env, FURROW_HOME: home };
    const out = await new Promise<string>((resolve, reject) => execFile('sh', ['-c', watch!.replace('10110', port)], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
    const fixes = out.trim().split('\n').map((l) => JSON.parse(l) as { lat: number; lon: number });
    expect(fixes).toHaveLength(5);
    for (const f of fixes) expect(onWalk(f)).toBe(true);
  }, 90_000);
});
