// gpsd's reports as its documentation shows them (gpsd_json(5)), made fixes.
import { describe, expect, it } from 'vitest';
import { GpsdReports, skyOf, tpvFix } from './gpsd.ts';

const TPV = { class: 'TPV', device: '/dev/pts/1', time: '2005-06-08T10:34:48.283Z', ept: 0.005, lat: 46.498293369, lon: 7.567411672, alt: 1343.127, eph: 36.0, epv: 32.321, track: 10.3788, speed: 0.091, climb: -0.085, mode: 3 };
const SKY = {
  class: 'SKY', device: '/dev/pts/1', time: '2005-07-08T11:28:07.114Z', xdop: 1.55, hdop: 1.24, pdop: 1.99,
  satellites: [{ PRN: 23, el: 6, az: 84, ss: 0, used: false }, { PRN: 28, el: 7, az: 160, ss: 0, used: false }, { PRN: 8, el: 66, az: 189, ss: 44, used: true }, { PRN: 29, el: 13, az: 273, ss: 0, used: false }, { PRN: 10, el: 51, az: 304, ss: 29, used: true }],
};
const GST = { class: 'GST', device: '/dev/pts/1', time: '2005-06-08T10:34:48.283Z', rms: 2.44, major: 1.66, minor: 1.12, orient: 68.989, lat: 1.6, lon: 1.2, alt: 2.52 };

describe('gpsd', () => {
  it('SKY: satellites used and in view from the list (or uSat/nSat), and HDOP', () => {
    expect(skyOf(SKY)).toEqual({ used: 2, inView: 5, hdop: 1.24 });
    expect(skyOf({ class: 'SKY', nSat: 30, uSat: 21, hdop: 0.5 })).toEqual({ used: 21, inView: 30, hdop: 0.5 });
  });
  it('TPV: position, altitude, speed, heading; accuracy from GST of the same time, else from epx/epy (95 % per axis)', () => {
    const f = tpvFix(TPV, skyOf(SKY), GST, 1000)!;
    expect(f).toMatchObject({ lat: 46.498293369, lon: 7.567411672, altitude: 1343.127, quality: 'gps', satellites: 2, hdop: 1.24, speed: 0.091, time: TPV.time, received: 1000 });
    expect(f.accuracy).toBeCloseTo(2, 12);
    expect(f.heading).toBeNull(); // 9 cm/s: standing still
    expect(tpvFix({ ...TPV, speed: 1.2 }, null, { ...GST, time: 'another' }, 0)).toMatchObject({ heading: 10.3788, accuracy: null, satellites: null });
    expect(tpvFix({ ...TPV, epx: 3.92, epy: 3.92 * 0.75 }, null, null, 0)!.accuracy).toBeCloseTo(2.5, 12);
    expect(tpvFix({ ...TPV, altMSL: 1300 }, null, null, 0)!.altitude).toBe(1300);
  });
  it('TPV status as quality; mode 0 or 1, or no position, is no fix', () => {
    expect([2, 3, 4, 5, 8, 1, 0].map((status) => tpvFix({ ...TPV, status }, null, null, 0)!.quality)).toEqual(['dgps', 'rtk-fixed', 'rtk-float', 'estimated', 'simulation', 'gps', 'gps']);
    expect(tpvFix({ ...TPV, mode: 1 }, null, null, 0)).toBeNull();
    expect(tpvFix({ class: 'TPV', mode: 3 }, null, null, 0)).toBeNull();
    expect(tpvFix({ ...TPV, lat: 91 }, null, null, 0)).toBeNull();
  });
  it('reports in order: SKY and GST kept for the TPV, other classes and devices skipped, not JSON ignored', () => {
    const r = new GpsdReports(() => 5);
    expect(r.push('{"class":"VERSION","release":"3.25","rev":"3.25","proto_major":3,"proto_minor":15}')).toEqual([]);
    expect(r.release).toBe('3.25');
    expect(r.push('{"class":"DEVICES","devices":[]}')).toEqual([]);
    expect(r.push('not json {')).toEqual([]);
    expect(r.push(JSON.stringify(SKY))).toEqual([]);
    expect(r.push(JSON.stringify(GST))).toEqual([]);
    const [e] = r.push(JSON.stringify(TPV));
    expect(e!.inView).toBe(5);
    expect(e!.fix).toMatchObject({ satellites: 2, received: 5 });
    expect(e!.fix!.accuracy).toBeCloseTo(2, 12);
    expect(r.push(JSON.stringify({ ...TPV, device: '/dev/ttyUSB9', lat: 1 }))).toEqual([]);
    expect(r.push(JSON.stringify({ ...TPV, mode: 1 }))).toEqual([{ fix: null, inView: 5 }]);
  });
  it("gpsd 3.22's order, SKY, TPV, GST: once a GST followed its TPV, each TPV waits for its GST", () => {
    const r = new GpsdReports(() => 5);
    const at = (s: number) => `2026-11-29T08:46:${String(s).padStart(2, '0')}.000Z`;
    const tpv = (s: number) => JSON.stringify({ ...TPV, time: at(s), epx: 9.62, epy: 11.231 });
    const gst = (s: number) => JSON.stringify({ ...GST, time: at(s), lat: 0.012, lon: 0.009 });
    // The first cycle: not known yet that GST follows; the TPV goes with gpsd's DOP-based estimate.
    expect(r.push(JSON.stringify(SKY))).toEqual([]);
    expect(r.push(tpv(1))[0]!.fix!.accuracy).toBeCloseTo(Math.hypot(9.62, 11.231) / 1.96, 9);
    expect(r.push(gst(1))).toEqual([]);
    // From the second: the TPV waits, its GST gives the receiver's own accuracy.
    expect(r.push(tpv(2))).toEqual([]);
    const [e] = r.push(gst(2));
    expect(e!.fix!.time).toBe(at(2));
    expect(e!.fix!.accuracy).toBeCloseTo(Math.hypot(0.012, 0.009), 12);
    // A GST that does not come: the TPV goes when the next cycle begins.
    expect(r.push(tpv(3))).toEqual([]);
    const next = r.push(tpv(4));
    expect(next.map((x) => x.fix!.time)).toEqual([at(3)]);
    expect(r.push(gst(4))[0]!.fix!.time).toBe(at(4));
  });
});
