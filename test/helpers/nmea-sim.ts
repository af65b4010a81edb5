// A GNSS receiver simulated (issue 31): the walk round a field (test/helpers/gnss-walk.ts) as a u-blox-like receiver
// sends it — a cycle of GGA, GSA, GSV, RMC and GST each 1/hz seconds — with the faults real ones have: the fix
// changing (RTK fixed → float → none), dropouts (silence), bad checksums, a sentence cut mid-way. The cycles are a
// pure function of the options (simCycles) so a test knows what was sent; NmeaPlayer plays them in real time and
// test/helpers/nmea-sim-servers.ts serves them over TCP, UDP, gpsd's protocol or a pseudo-terminal.
import { nmeaSentence } from '../../core/gnss/nmea.ts';
import { fieldWalk, type WalkOptions, type WalkPoint } from './gnss-walk.ts';

/** GGA's indicator: 0 none, 1 GPS, 2 DGPS, 4 RTK fixed, 5 RTK float. */
export type SimQuality = 0 | 1 | 2 | 4 | 5;

export interface SimOptions extends WalkOptions {
  /** The fix over the walk: [fraction of the walk where it starts, GGA quality]; by default RTK fixed throughout. */
  fixes?: [number, SimQuality][];
  /** Silences: [fraction of the walk, seconds] (the walker walks on, the receiver says nothing). */
  dropouts?: [number, number][];
  /** Every n-th sentence is sent with a wrong checksum (0: none). */
  badChecksumEvery?: number;
  /** Cycles (fractions of the walk) at which the receiver stops mid-sentence: half of its GGA, no line end. */
  cuts?: number[];
  /** The UTC time of the first cycle (ms since the epoch). */
  start?: number;
}

/** The walk with fix changes, dropouts, bad checksums and a cut: what `--faults` plays. */
export const FAULTS: Pick<SimOptions, 'fixes' | 'dropouts' | 'badChecksumEvery' | 'cuts'> = {
  fixes: [[0, 4], [0.4, 5], [0.55, 0], [0.6, 2], [0.7, 4]],
  dropouts: [[0.3, 3]],
  badChecksumEvery: 37,
  cuts: [0.2, 0.8],
};

/** One cycle: where the walker was, what the receiver said (null: silent), and the text sent. */
export interface SimCycle {
  point: WalkPoint;
  /** UTC ms. */
  time: number;
  quality: SimQuality;
  /** One-sigma errors (m) the GST said. */
  latSigma: number;
  lonSigma: number;
  /** The sentences sent, each with CR LF (a cut one without); '' while silent. */
  text: string;
  silent: boolean;
  /** The sentences sent whole with a right checksum. */
  good: number;
}

const SIGMA: Record<SimQuality, [number, number]> = { 0: [0, 0], 1: [1.7, 1.3], 2: [0.6, 0.5], 4: [0.012, 0.009], 5: [0.25, 0.2] };
const HDOP: Record<SimQuality, number> = { 0: 99.99, 1: 1.1, 2: 0.9, 4: 0.62, 5: 0.7 };
const RMC_MODE: Record<SimQuality, string> = { 0: 'N', 1: 'A', 2: 'D', 4: 'R', 5: 'F' };
export const SIM_SATELLITES = 14;
/** Satellites in view: GPS 8 (two GSV), GLONASS 4. */
export const SIM_IN_VIEW = 12;
export const SIM_ALTITUDE = 81.3;

const pad = (n: number, w: number) => String(n).padStart(w, '0');
function hhmmss(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}.${pad(Math.floor(d.getUTCMilliseconds() / 10), 2)}`;
}
const ddmmyy = (ms: number) => { const d = new Date(ms); return `${pad(d.getUTCDate(), 2)}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCFullYear() % 100, 2)}`; };
/** Degrees as NMEA's (d)ddmm.mmmmmmm and hemisphere: 7 decimals of minutes, under 0.2 mm. */
function nmeaAngle(v: number, degDigits: 2 | 3, pos: string, neg: string): [string, string] {
  const a = Math.abs(v);
  let deg = Math.floor(a);
  let min = Number(((a - deg) * 60).toFixed(7));
  if (min >= 60) { deg += 1; min -= 60; }
  return [`${pad(deg, degDigits)}${min.toFixed(7).padStart(10, '0')}`, v < 0 ? neg : pos];
}

/** The sentences of one cycle, without faults (each without its CR LF). */
export function cycleSentences(p: WalkPoint, time: number, quality: SimQuality): string[] {
  const t = hhmmss(time);
  const fix = quality !== 0;
  const [lat, ns] = fix ? nmeaAngle(p.lat, 2, 'N', 'S') : ['', ''];
  const [lon, ew] = fix ? nmeaAngle(p.lon, 3, 'E', 'W') : ['', ''];
  const [sLat, sLon] = SIGMA[quality];
  const knots = (p.speed * 3600 / 1852).toFixed(3);
  return [
    `GNGGA,${t},${lat},${ns},${lon},${ew},${quality},${fix ? SIM_SATELLITES : 0},${HDOP[quality]},${fix ? SIM_ALTITUDE : ''},${fix ? 'M' : ''},${fix ? '45.2' : ''},${fix ? 'M' : ''},${quality === 4 || quality === 5 ? '1.0' : ''},${quality === 4 || quality === 5 ? '0000' : ''}`,
    `GNGSA,A,${fix ? 3 : 1},${fix ? '05,07,13,14,15,17,19,24,28,30,02,09' : ',,,,,,,,,,,'},1.10,${HDOP[quality]},0.91,1`,
    'GPGSV,2,1,08,05,38,230,44,07,71,156,47,13,29,116,41,14,09,081,36,1',
    'GPGSV,2,2,08,15,45,200,40,17,60,010,45,19,22,300,38,24,12,150,33,1',
    'GLGSV,1,1,04,65,38,230,44,66,71,156,47,72,29,116,41,73,09,081,36,1',
    `GNRMC,${t},${fix ? 'A' : 'V'},${lat},${ns},${lon},${ew},${fix ? knots : ''},${fix && p.speed > 0 ? p.heading.toFixed(2) : ''},${ddmmyy(time)},,,${RMC_MODE[quality]},V`,
    `GNGST,${t},0.5,,,,${fix ? sLat.toFixed(3) : ''},${fix ? sLon.toFixed(3) : ''},${fix ? '0.030' : ''}`,
  ].map(nmeaSentence);
}

function at<T>(plan: [number, T][], f: number, def: T): T {
  let v = def;
  for (const [from, value] of plan) if (f >= from) v = value;
  return v;
}

/** Every cycle of the walk with its faults: pure. */
export function simCycles(o: SimOptions = {}): SimCycle[] {
  const walk = fieldWalk(o);
  const end = walk.at(-1)!.t || 1;
  const start = o.start ?? Date.UTC(2026, 10, 29, 9, 0, 0);
  const cutsLeft = [...(o.cuts ?? [])].sort((a, b) => a - b);
  let n = 0;
  return walk.map((point) => {
    const f = point.t / end;
    const quality = at(o.fixes ?? [], f, 4 as SimQuality);
    // To the hundredth of a second NMEA times carry.
    const time = Math.round((start + point.t * 1000) / 10) * 10;
    const silent = (o.dropouts ?? []).some(([from, s]) => point.t >= from * end && point.t < from * end + s);
    const [latSigma, lonSigma] = SIGMA[quality];
    if (silent) return { point, time, quality, latSigma, lonSigma, text: '', silent, good: 0 };
    const sentences = cycleSentences(point, time, quality);
    const ok = sentences.map(() => !(o.badChecksumEvery && ++n % o.badChecksumEvery === 0));
    const lines = sentences.map((s, i) => (ok[i] ? `${s}\r\n` : `${s.slice(0, -2)}${s.endsWith('00') ? '01' : '00'}\r\n`));
    if (cutsLeft.length && f >= cutsLeft[0]!) {
      cutsLeft.shift();
      // The receiver stops mid-GGA and starts again with the next sentence: no line end between them.
      ok[0] = false;
      lines[0] = lines[0]!.slice(0, Math.floor(lines[0]!.length / 2));
    }
    const good = ok.filter(Boolean).length;
    return { point, time, quality, latSigma, lonSigma, text: lines.join(''), silent, good };
  });
}

/** A cycle as gpsd would report it: SKY, GST and TPV (gpsd's JSON, one line each), nothing without a fix but a mode-1 TPV. */
export function gpsdReports(c: SimCycle, device = '/dev/sim0'): string {
  const time = new Date(c.time).toISOString();
  const fix = c.quality !== 0;
  const status = { 0: 0, 1: 1, 2: 2, 4: 3, 5: 4 }[c.quality];
  const sats = Array.from({ length: SIM_IN_VIEW }, (_, i) => ({ PRN: i + 1, el: 30, az: i * 30, ss: 40, used: fix && i < SIM_SATELLITES }));
  const sky = { class: 'SKY', device, time, hdop: HDOP[c.quality], nSat: SIM_IN_VIEW, uSat: fix ? Math.min(SIM_SATELLITES, SIM_IN_VIEW) : 0, satellites: sats };
  const gst = { class: 'GST', device, time, rms: 0.5, lat: c.latSigma, lon: c.lonSigma, alt: 0.03 };
  const tpv = fix
    ? { class: 'TPV', device, mode: 3, status, time, lat: c.point.lat, lon: c.point.lon, altMSL: SIM_ALTITUDE, track: c.point.heading, speed: c.point.speed }
    : { class: 'TPV', device, mode: 1, time };
  return `${[sky, ...(fix ? [gst] : []), tpv].map((r) => JSON.stringify(r)).join('\r\n')}\r\n`;
}

/**
 * Plays the cycles in real time, each at its walk time after the start: to every listener, the cycle. `loop`: the
 * walk again from the start when it ends (with fresh times), as a receiver never stops; else `done` settles.
 */
export class NmeaPlayer {
  private readonly listeners = new Set<(c: SimCycle) => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  /** While paused: when it paused, and the cycle waiting to be played on resume. */
  private pausedAt: number | null = null;
  private waiting: (() => void) | null = null;
  /** The time spent paused: the walk's times are that much later. */
  private shift = 0;
  /** Cycles played so far (silent ones included). */
  played = 0;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(private readonly opts: SimOptions & { loop?: boolean } = {}) {
    this.done = new Promise((r) => { this.resolveDone = r; });
  }

  onCycle(listener: (c: SimCycle) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): this {
    const lap = () => {
      const t0 = Date.now();
      this.shift = 0;
      const cycles = simCycles({ ...this.opts, start: this.opts.start ?? t0 });
      let i = 0;
      const next = () => {
        if (this.stopped) return;
        if (this.pausedAt !== null) {
          this.waiting = next;
          return;
        }
        if (i >= cycles.length) {
          if (this.opts.loop) lap();
          else this.resolveDone();
          return;
        }
        const c = cycles[i++]!;
        this.played++;
        for (const l of this.listeners) l(c);
        const due = i < cycles.length ? t0 + this.shift + cycles[i]!.point.t * 1000 : Date.now() + 1000 / (this.opts.hz ?? 5);
        this.timer = setTimeout(next, Math.max(0, due - Date.now()));
      };
      next();
    };
    lap();
    return this;
  }

  /** Stops sending (the surveyor stands still, the receiver out of reach) until resume(), the walk taken up where it was. */
  pause(): void {
    this.pausedAt ??= Date.now();
  }

  resume(): void {
    if (this.pausedAt === null) return;
    this.shift += Date.now() - this.pausedAt;
    this.pausedAt = null;
    const next = this.waiting;
    this.waiting = null;
    next?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.resolveDone();
  }
}
