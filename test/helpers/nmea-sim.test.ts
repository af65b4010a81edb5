// The simulator says what it means to: the walk's positions come back out of core/gnss's parser to a tenth of a
// millimetre, the field is a hectare by GeographicLib, and each fault is there.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ringAreaM2 } from '../../core/geo/area.ts';
import { FixAssembler, type Epoch } from '../../core/gnss/fix-assembler.ts';
import { LineSplitter } from '../../core/gnss/line-splitter.ts';
import { parseSentence } from '../../core/gnss/nmea.ts';
import { GpsdReports } from '../../core/gnss/gpsd.ts';
import { fieldWalk, walkRing } from './gnss-walk.ts';
import { FAULTS, NmeaPlayer, simCycles, SIM_IN_VIEW } from './nmea-sim.ts';
import { sendNmeaUdp, serveGpsd, serveNmeaTcp } from './nmea-sim-servers.ts';

function read(text: string): { epochs: Epoch[]; good: number; bad: number } {
  const splitter = new LineSplitter();
  const a = new FixAssembler(() => 0);
  let good = 0, bad = 0;
  const epochs: Epoch[] = [];
  for (const line of splitter.push(text)) {
    const s = parseSentence(line);
    if (!s) { bad++; continue; }
    good++;
    epochs.push(...a.push(s));
  }
  return { epochs, good, bad };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0)) await c(); });

describe('the walk', () => {
  it('goes round a hectare at walking pace, a position every 1/hz s', () => {
    const w = fieldWalk({ hz: 5 });
    expect(ringAreaM2(walkRing(w)) / 10_000).toBeCloseTo(1, 4);
    expect(w.at(-1)!.t).toBeGreaterThan(280); // 400 m at 1.4 m/s
    expect(w.at(-1)!.t).toBeLessThan(290);
    expect(w[1]!.t - w[0]!.t).toBeCloseTo(0.2, 2);
    expect(fieldWalk({ hz: 1 }).length).toBeLessThan(w.length / 4);
  });
});

describe('the cycles', () => {
  it("are read back by core/gnss: every position, RTK fixed, GST's accuracy", () => {
    const cycles = simCycles({ hz: 2 });
    const { epochs, bad } = read(cycles.map((c) => c.text).join(''));
    expect(bad).toBe(0);
    // The first cycle ends when the second begins, each later one with its own last sentence: every one is read.
    expect(epochs).toHaveLength(cycles.length);
    for (let i = 0; i < epochs.length; i++) {
      const f = epochs[i]!.fix!;
      expect(Math.abs(f.lat - cycles[i]!.point.lat)).toBeLessThan(1e-8);
      expect(Math.abs(f.lon - cycles[i]!.point.lon)).toBeLessThan(1e-8);
      expect(f.quality).toBe('rtk-fixed');
      expect(f.time).toBe(new Date(cycles[i]!.time).toISOString());
    }
    expect(epochs[5]!.inView).toBe(SIM_IN_VIEW);
    expect(epochs[5]!.fix!.accuracy).toBeCloseTo(Math.hypot(0.012, 0.009), 9);
  });
  it('with faults: the fix changes, a silence, bad checksums and cut sentences', () => {
    const cycles = simCycles({ hz: 2, ...FAULTS });
    const { epochs, good, bad } = read(cycles.map((c) => c.text).join(''));
    expect(good).toBe(cycles.reduce((n, c) => n + c.good, 0));
    expect(bad).toBeGreaterThan(20);
    expect(cycles.filter((c) => c.silent).length).toBe(6); // 3 s at 2 Hz
    // The qualities in the order they came, each run once.
    const qualities = epochs.map((e) => e.fix?.quality ?? 'no fix').filter((q, i, all) => i === 0 || all[i - 1] !== q);
    expect(qualities).toEqual(['rtk-fixed', 'rtk-float', 'no fix', 'dgps', 'rtk-fixed']);
  });
});

describe('the servers', () => {
  it('TCP: NMEA to each client, and a client dropped', async () => {
    const player = new NmeaPlayer({ hz: 10 });
    const s = await serveNmeaTcp(player);
    cleanups.push(() => s.close(), () => player.stop());
    const sock = connect(s.port, '127.0.0.1');
    let got = '';
    sock.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    await new Promise((r) => sock.once('connect', r));
    await expect.poll(() => s.clients()).toBe(1);
    player.start();
    await expect.poll(() => read(got).epochs.length, { timeout: 5000 }).toBeGreaterThan(3);
    const closed = new Promise((r) => sock.once('close', r));
    s.dropClients();
    await closed;
  });
  it('UDP: a datagram a cycle', async () => {
    const rx = createSocket('udp4');
    await new Promise<void>((r) => rx.bind(0, '127.0.0.1', () => r()));
    let got = '';
    rx.on('message', (m) => { got += m.toString('latin1'); });
    const player = new NmeaPlayer({ hz: 10 });
    const u = sendNmeaUdp(player, rx.address().port);
    cleanups.push(() => rx.close(), () => u.close(), () => player.stop());
    player.start();
    await expect.poll(() => read(got).epochs.length, { timeout: 5000 }).toBeGreaterThan(3);
  });
  it("gpsd's protocol: VERSION, then DEVICES, WATCH and the reports once watched", async () => {
    const player = new NmeaPlayer({ hz: 10 });
    const g = await serveGpsd(player);
    cleanups.push(() => g.close(), () => player.stop());
    const sock = connect(g.port, '127.0.0.1');
    cleanups.push(() => sock.destroy());
    let got = '';
    sock.on('data', (d: Buffer) => { got += d.toString(); });
    await expect.poll(() => got).toMatch(/"class":"VERSION"/);
    player.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(got).not.toMatch(/TPV/);
    sock.write('?WATCH={"enable":true,"json":true}\n');
    await expect.poll(() => got, { timeout: 5000 }).toMatch(/"class":"TPV"/);
    const lines = got.split('\r\n').filter(Boolean).map((l) => JSON.parse(l) as { class: string });
    expect(lines.slice(0, 3).map((l) => l.class)).toEqual(['VERSION', 'DEVICES', 'WATCH']);
    const r = new GpsdReports(() => 0);
    const fixes = got.split('\r\n').flatMap((l) => r.push(l)).filter((e) => e.fix);
    expect(fixes[0]!.fix).toMatchObject({ quality: 'rtk-fixed', satellites: 12 });
  });
});
