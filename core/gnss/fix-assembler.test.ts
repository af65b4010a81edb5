// A cycle's sentences made one fix, as real receivers send them (u-blox's GGA, GSA, GSV, RMC, GST order; Trimble's
// GGA, GST; an RMC-only receiver).
import { describe, expect, it } from 'vitest';
import { FixAssembler, fixTime, type Epoch } from './fix-assembler.ts';
import { nmeaSentence, parseSentence } from './nmea.ts';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 5);

function feed(a: FixAssembler, lines: string[]): Epoch[] {
  return lines.flatMap((l) => a.push(parseSentence(l.startsWith('$') ? l : nmeaSentence(l))!));
}

/** One u-blox cycle at `time` (hhmmss.ss), RTK fixed unless told. */
const cycle = (time: string, quality = 4, lat = '5212.90000') => [
  `GNGGA,${time},${lat},N,01101.20000,E,${quality},14,0.62,81.3,M,45.2,M,1.0,0000`,
  'GNGSA,A,3,05,07,13,14,15,17,19,24,28,30,,,1.10,0.62,0.91,1',
  'GPGSV,3,1,11,05,38,230,44,07,71,156,47,13,29,116,41,14,09,081,36,1',
  'GLGSV,2,1,06,65,38,230,44,66,71,156,47,72,29,116,41,73,09,081,36,1',
  `GNRMC,${time},A,${lat},N,01101.20000,E,2.721,91.5,291126,,,R,V`,
  `GNGST,${time},0.5,0.020,0.010,45.0,0.012,0.009,0.030`,
];

describe('FixAssembler', () => {
  it('gives the fix of a cycle once it holds the sentences the cycle before held', () => {
    const a = new FixAssembler(() => NOW);
    expect(feed(a, cycle('120000.00'))).toEqual([]); // the first cycle: its end is not known yet
    const second = cycle('120000.10');
    const out = feed(a, second.slice(0, 1));
    // The first one ends when the next time arrives.
    expect(out).toHaveLength(1);
    expect(out[0]!.fix).toMatchObject({ time: '2026-11-29T12:00:00.000Z' });
    expect(feed(a, second.slice(1, 5))).toEqual([]);
    const [e] = feed(a, second.slice(5)); // GST, the last timed sentence: the cycle is whole
    expect(e!.inView).toBe(17);
    const f = e!.fix!;
    expect(f).toMatchObject({ quality: 'rtk-fixed', satellites: 14, hdop: 0.62, altitude: 81.3, heading: 91.5, time: '2026-11-29T12:00:00.100Z', received: NOW });
    expect(f.lat).toBeCloseTo(52 + 12.9 / 60, 9);
    expect(f.lon).toBeCloseTo(11 + 1.2 / 60, 9);
    expect(f.speed).toBeCloseTo(2.721 * 1852 / 3600, 9);
    expect(f.accuracy).toBeCloseTo(Math.sqrt(0.012 ** 2 + 0.009 ** 2), 12);
  });
  it('each quality, and no fix: a GGA without position, or with quality 0', () => {
    const a = new FixAssembler(() => NOW);
    const q: (string | null)[] = [];
    const times = ['120001.00', '120002.00', '120003.00', '120004.00', '120005.00', '120006.00'];
    const qualities = [4, 5, 2, 1, 0, 4];
    for (let i = 0; i < times.length; i++) for (const e of feed(a, cycle(times[i]!, qualities[i]))) q.push(e.fix?.quality ?? null);
    expect(q).toEqual(['rtk-fixed', 'rtk-float', 'dgps', 'gps', null, 'rtk-fixed']);
    const none = feed(a, ['GNGGA,120007.00,,,,,0,00,99.99,,,,,,', 'GNRMC,120007.00,V,,,,,,,291126,,,N,V', 'GNGST,120007.00,,,,,,,']);
    expect(none).toEqual([{ fix: null, inView: 17 }]);
  });
  it('Trimble GGA + GST: accuracy from GST, no speed or heading', () => {
    const a = new FixAssembler(() => Date.UTC(2026, 10, 29, 17, 28, 20));
    const lines = ['$GPGGA,172814.0,3723.46587704,N,12202.26957864,W,2,6,1.2,18.893,M,-25.669,M,2.0,0031*4F', '$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A'];
    feed(a, lines);
    const [e] = feed(a, ['GPGGA,172815.0,3723.46587704,N,12202.26957864,W,2,6,1.2,18.893,M,-25.669,M,2.0,0031']);
    expect(e!.fix).toMatchObject({ quality: 'dgps', accuracy: Math.hypot(0.023, 0.02), speed: null, heading: null, time: '2026-11-29T17:28:14.000Z' });
  });
  it('an RMC-only receiver: position, quality from its mode, no accuracy', () => {
    const a = new FixAssembler(() => NOW);
    const rmc = (t: string) => `GPRMC,${t},A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,D`;
    feed(a, [rmc('083559.00')]);
    const [e] = feed(a, [rmc('083600.00')]);
    // The first completes on the second's arrival; from now on each RMC completes its own cycle.
    expect(e!.fix).toMatchObject({ quality: 'dgps', accuracy: null, satellites: null, heading: null, time: '2002-12-09T08:35:59.000Z' });
    expect(feed(a, [rmc('083601.00')])[0]!.fix!.time).toBe('2002-12-09T08:36:01.000Z');
  });
  it('a GGA-only receiver gets the date nearest the host clock (midnight included)', () => {
    expect(fixTime(86399, null, Date.UTC(2026, 10, 29, 0, 0, 1))).toBe('2026-11-28T23:59:59.000Z');
    expect(fixTime(1, null, Date.UTC(2026, 10, 28, 23, 59, 59))).toBe('2026-11-29T00:00:01.000Z');
    expect(fixTime(3600.25, Date.UTC(2026, 0, 2) / 86_400_000, 0)).toBe('2026-01-02T01:00:00.250Z');
  });
  it('counts satellites in view per system once, whatever the number of signals', () => {
    const a = new FixAssembler(() => NOW);
    feed(a, ['GPGSV,1,1,04,05,38,230,44,07,71,156,47,13,29,116,41,14,09,081,36,1', 'GPGSV,1,1,03,05,38,230,44,07,71,156,47,13,29,116,41,7', 'GAGSV,1,1,02,05,38,230,44,07,71,156,47,7']);
    expect(a.satellitesInView()).toBe(6);
  });
});
