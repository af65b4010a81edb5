// gpsd's JSON protocol (https://gpsd.io/gpsd_json.html), the usual way to a receiver on Linux: after
// ?WATCH={"enable":true,"json":true} gpsd sends a VERSION, DEVICES and WATCH, then per cycle a TPV (time, position,
// velocity), a SKY (satellites, DOPs) and, when the receiver sends GST, a GST (error estimates). Pure: one parsed
// object in, the contract's fix out.
//
// Accuracy: GST's one-sigma latitude and longitude errors combined, sqrt(σlat² + σlon²), as for NMEA
// (core/gnss/fix-assembler.ts), when a GST of the TPV's time came; else TPV's epx and epy, which gpsd gives at
// 95 % confidence per axis, each divided by 1.96 to one sigma and combined the same way; else null.
import type { Fix, FixQuality } from '../api-position.ts';
import type { Epoch } from './fix-assembler.ts';

/** What gpsd is asked once connected: every device's reports, as JSON. */
export const GPSD_WATCH = '?WATCH={"enable":true,"json":true}\n';

type Json = Record<string, unknown>;
const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const nonNegative = (v: unknown): number | null => { const x = n(v); return x !== null && x >= 0 ? x : null; };

/** TPV's status (gpsd 3.20 and later) in words, for a 2D or 3D fix: 2 DGPS, 3 RTK fixed, 4 RTK float, 5 and 6 dead reckoning, 7 surveyed time, 8 simulated. */
const STATUS: Record<number, FixQuality> = { 2: 'dgps', 3: 'rtk-fixed', 4: 'rtk-float', 5: 'estimated', 6: 'estimated', 7: 'manual', 8: 'simulation' };

/** The satellites used and in view, and the HDOP, of a SKY report. */
export interface Sky { used: number | null; inView: number | null; hdop: number | null }

export function skyOf(o: Json): Sky {
  const sats = Array.isArray(o.satellites) ? (o.satellites as unknown[]).filter((s): s is Json => typeof s === 'object' && s !== null) : null;
  return {
    used: nonNegative(o.uSat) ?? (sats ? sats.filter((s) => s.used === true).length : null),
    inView: nonNegative(o.nSat) ?? (sats ? sats.length : null),
    hdop: nonNegative(o.hdop),
  };
}

/** A TPV made a fix, with the cycle's SKY and GST when known; null when gpsd has no 2D/3D fix. */
export function tpvFix(tpv: Json, sky: Sky | null, gst: Json | null, received: number): Fix | null {
  const mode = n(tpv.mode);
  const lat = n(tpv.lat), lon = n(tpv.lon);
  if (mode === null || mode < 2 || lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  const status = n(tpv.status);
  const quality: FixQuality = (status !== null && STATUS[status]) || 'gps';
  const time = typeof tpv.time === 'string' && tpv.time.length <= 40 && !Number.isNaN(Date.parse(tpv.time)) ? tpv.time : new Date(received).toISOString();
  let accuracy: number | null = null;
  const gLat = gst && gst.time === tpv.time ? nonNegative(gst.lat) : null;
  const gLon = gst && gst.time === tpv.time ? nonNegative(gst.lon) : null;
  if (gLat !== null && gLon !== null) accuracy = Math.hypot(gLat, gLon);
  else {
    const ex = nonNegative(tpv.epx), ey = nonNegative(tpv.epy);
    if (ex !== null && ey !== null) accuracy = Math.hypot(ex / 1.96, ey / 1.96);
  }
  const speed = nonNegative(tpv.speed);
  const track = n(tpv.track);
  return {
    lon, lat,
    // altMSL from gpsd 3.20; alt before (then above mean sea level too).
    altitude: n(tpv.altMSL) ?? n(tpv.alt),
    quality,
    satellites: sky?.used ?? null,
    hdop: sky?.hdop ?? null,
    accuracy,
    heading: track !== null && track >= 0 && track <= 360 && speed !== null && speed > 0.1 ? track % 360 : null,
    speed,
    time,
    received,
  };
}

/**
 * gpsd's reports one after another: SKY kept for the TPV it goes with, and GST matched to the TPV of its time. gpsd
 * 3.22 sends a cycle as SKY, TPV, GST — the GST after the TPV it belongs to — so once a GST has followed its TPV,
 * each TPV is held until its GST comes (or the next cycle begins: then it goes without). Reports of other classes,
 * and of other devices than the first one gpsd reported a fix from, are skipped.
 */
export class GpsdReports {
  private sky: Sky | null = null;
  private gst: Json | null = null;
  private device: string | null = null;
  /** A GST came after the TPV of its time: the next TPVs wait for theirs. */
  private gstFollows = false;
  private held: Json | null = null;
  /** The version gpsd announced (its VERSION report's release), null before it. */
  release: string | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** A line of gpsd's: the epochs it completes (none for another class, not JSON, another device). */
  push(line: string): Epoch[] {
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      return [];
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return [];
    const r = o as Json;
    if (typeof r.device === 'string' && this.device !== null && r.device !== this.device) return [];
    switch (r.class) {
      case 'VERSION': this.release = typeof r.release === 'string' ? r.release.slice(0, 40) : null; return [];
      case 'SKY': this.sky = skyOf(r); return [];
      case 'GST': {
        this.gst = r;
        const held = this.held;
        if (held && held.time === r.time) { this.held = null; return [this.epoch(held)]; }
        if (this.last !== null && this.last === r.time) this.gstFollows = true;
        return [];
      }
      case 'TPV': {
        const out: Epoch[] = [];
        if (this.held) { out.push(this.epoch(this.held)); this.held = null; }
        if (this.gstFollows && (this.gst === null || this.gst.time !== r.time) && n(r.mode) !== null && n(r.mode)! >= 2) this.held = r;
        else out.push(this.epoch(r));
        return out;
      }
      default: return [];
    }
  }

  /** The time of the last TPV given. */
  private last: unknown = null;

  private epoch(tpv: Json): Epoch {
    this.last = tpv.time;
    const fix = tpvFix(tpv, this.sky, this.gst, this.now());
    if (fix && typeof tpv.device === 'string') this.device ??= tpv.device;
    return { fix, inView: this.sky?.inView ?? null };
  }
}
