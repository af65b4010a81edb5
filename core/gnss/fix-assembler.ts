// A receiver's sentences made fixes: a receiver sends one burst a cycle (an epoch: GGA, RMC, GSA, GST, GSV in an order
// of its own), and a fix takes fields from several of them — the position, quality, satellites, HDOP and altitude
// from GGA, the speed, course and date from RMC, the accuracy from GST. A cycle's sentences share their UTC time;
// GSA and GSV carry none and are taken as the latest. The assembler learns which timed sentences a cycle of this
// receiver holds (those of the cycle before) and gives the fix as soon as the current cycle has them all — no wait
// for the next cycle — or, for a receiver whose cycle changes, when a sentence of a newer time arrives.
//
// Accuracy: GST's one-sigma latitude and longitude errors combined as sqrt(σlat² + σlon²) (the "DRMS" radius,
// 63–68 % of fixes within it), the horizontal accuracy the contract asks for; null without GST. Never made up from
// HDOP: HDOP times a guessed range error is no measure of a real receiver's accuracy, and a survey's metadata
// would carry it as one.
import type { Fix, FixQuality } from '../api-position.ts';
import { parseGga, parseGsa, parseGst, parseGsv, parseRmc, type Gga, type Gst, type Rmc, type Sentence } from './nmea.ts';

/** What a cycle gives: its fix, or null when the receiver said it has none; and the satellites in view (GSV). */
export interface Epoch {
  fix: Fix | null;
  inView: number | null;
}

interface Cycle {
  time: number;
  gga: Gga | null;
  rmc: Rmc | null;
  gst: Gst | null;
  seen: Set<string>;
  done: boolean;
}

const DAY_S = 86_400;

/**
 * The ISO time of a fix taken at `seconds` past UTC midnight: on `day` (RMC's date, days since the epoch) when
 * known, else on the day that puts it nearest `now` (a GGA-only receiver just after midnight is still yesterday's).
 */
export function fixTime(seconds: number, day: number | null, now: number): string {
  let ms: number;
  if (day !== null) ms = (day * DAY_S + seconds) * 1000;
  else {
    const today = Math.floor(now / 86_400_000);
    ms = [today - 1, today, today + 1].map((d) => (d * DAY_S + seconds) * 1000).reduce((a, b) => (Math.abs(b - now) < Math.abs(a - now) ? b : a));
  }
  return new Date(Math.round(ms)).toISOString();
}

export class FixAssembler {
  private cycle: Cycle | null = null;
  /** The timed sentences the last whole cycle held: the current one is complete when it has them all. */
  private expected = new Set<string>();
  /** The last RMC date: GGA carries no date. */
  private day: number | null = null;
  private lastDayTime = -1;
  private hdop: number | null = null;
  /** Satellites in view per talker and signal (NMEA 4.10 sends a GSV group per signal: not counted twice). */
  private inView = new Map<string, number>();

  /** `now`: the host's clock (ms since the epoch), stamped on each fix as `received`. */
  constructor(private readonly now: () => number = Date.now) {}

  /** Takes a sentence; returns the epochs it completed (usually none, sometimes one). */
  push(s: Sentence): Epoch[] {
    const out: Epoch[] = [];
    switch (s.type) {
      case 'GGA': this.timed(s.type, parseGga(s.fields), out); break;
      case 'RMC': this.timed(s.type, parseRmc(s.fields), out); break;
      case 'GST': this.timed(s.type, parseGst(s.fields), out); break;
      case 'GSA': {
        const g = parseGsa(s.fields);
        if (g?.hdop !== null && g?.hdop !== undefined) this.hdop = g.hdop;
        break;
      }
      case 'GSV': {
        const g = parseGsv(s.fields);
        // A signal id ends a NMEA 4.10 sentence: 3 + 4·n fields and one more.
        if (g) this.inView.set(`${s.talker}/${(s.fields.length - 3) % 4 === 1 ? s.fields[s.fields.length - 1] : ''}`, g.inView);
        break;
      }
      default:
    }
    return out;
  }

  /** Satellites in view, all systems: for each talker the largest of its signals' counts; null before any GSV. */
  satellitesInView(): number | null {
    if (this.inView.size === 0) return null;
    const byTalker = new Map<string, number>();
    for (const [k, v] of this.inView) {
      const t = k.slice(0, k.indexOf('/'));
      byTalker.set(t, Math.max(byTalker.get(t) ?? 0, v));
    }
    let n = 0;
    for (const v of byTalker.values()) n += v;
    return n;
  }

  private timed(type: 'GGA' | 'RMC' | 'GST', parsed: Gga | Rmc | Gst | null, out: Epoch[]): void {
    if (!parsed || parsed.time === null) return;
    if (type === 'RMC') {
      const rmc = parsed as Rmc;
      if (rmc.day !== null) { this.day = rmc.day; this.lastDayTime = rmc.time!; }
    }
    let c = this.cycle;
    if (c && c.time !== parsed.time) {
      if (!c.done) this.finish(c, out);
      this.expected = c.seen;
      c = null;
    }
    if (!c) c = this.cycle = { time: parsed.time, gga: null, rmc: null, gst: null, seen: new Set(), done: false };
    if (type === 'GGA') c.gga = parsed as Gga;
    else if (type === 'RMC') c.rmc = parsed as Rmc;
    else c.gst = parsed as Gst;
    c.seen.add(type);
    if (!c.done && this.expected.size > 0 && [...this.expected].every((t) => c.seen.has(t))) this.finish(c, out);
  }

  private finish(c: Cycle, out: Epoch[]): void {
    c.done = true;
    out.push({ fix: this.fixOf(c), inView: this.satellitesInView() });
  }

  private fixOf(c: Cycle): Fix | null {
    const { gga, rmc, gst } = c;
    const lat = gga?.lat ?? rmc?.lat ?? null;
    const lon = gga?.lon ?? rmc?.lon ?? null;
    // GGA's indicator when sent (an RMC without GGA: its status and mode). A position with quality 0 — some
    // receivers repeat the last one — is no fix, nor is a cycle without a position.
    const quality: FixQuality = gga ? gga.quality : rmc!.quality;
    if (lat === null || lon === null || quality === 'none') return null;
    const accuracy = gst && gst.latSigma !== null && gst.lonSigma !== null ? Math.hypot(gst.latSigma, gst.lonSigma) : null;
    // The cycle's own RMC date; else the last one, if given at or before this time of day (a midnight between: unknown).
    const day = rmc?.day ?? (this.day !== null && c.time >= this.lastDayTime ? this.day : null);
    const speed = rmc?.speed ?? null;
    return {
      lon, lat,
      altitude: gga?.altitude ?? null,
      quality,
      satellites: gga?.satellites ?? null,
      hdop: gga?.hdop ?? this.hdop,
      accuracy,
      // A course over ground means nothing standing still: receivers send noise or the last one.
      heading: rmc && rmc.course !== null && speed !== null && speed > 0.1 ? rmc.course : null,
      speed,
      time: fixTime(c.time, day, this.now()),
      received: this.now(),
    };
  }
}
