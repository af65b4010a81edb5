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
 * gpsd's reports one after another: SKY and GST kept for the TPV they go with (gpsd sends them in either order within
 * a cycle: a SKY after its TPV counts for the next one). Reports of other classes, and of other devices than the
 * first one gpsd reported a fix from, are skipped.
 */
export class GpsdReports {
  private sky: Sky | null = null;
  private gst: Json | null = null;
  private device: string | null = null;
  /** The version gpsd announced (its VERSION report's release), null before it. */
  release: string | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** A line of gpsd's: the epoch it completes, or null (another class, not JSON, another device). */
  push(line: string): Epoch | null {
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      return null;
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return null;
    const r = o as Json;
    if (typeof r.device === 'string' && this.device !== null && r.device !== this.device) return null;
    switch (r.class) {
      case 'VERSION': this.release = typeof r.release === 'string' ? r.release.slice(0, 40) : null; return null;
      case 'SKY': this.sky = skyOf(r); return null;
      case 'GST': this.gst = r; return null;
      case 'TPV': {
        const fix = tpvFix(r, this.sky, this.gst, this.now());
        if (fix && typeof r.device === 'string') this.device ??= r.device;
        return { fix, inView: this.sky?.inView ?? null };
      }
      default: return null;
    }
  }
}
