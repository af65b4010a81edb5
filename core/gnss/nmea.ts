// NMEA 0183 sentences as GNSS receivers send them (issue 31): the checksum, and the five sentences a position is made
// of — GGA (the fix: position, quality, satellites, HDOP, altitude), RMC (the minimum: position, speed, course, date),
// GSA (the satellites used and the DOPs), GST (the error estimates) and GSV (the satellites in view). Pure: a line
// in, its fields out; core/gnss/fix-assembler.ts makes them a fix. Any talker (GP GPS, GN combined, GL GLONASS,
// GA Galileo, GB/BD BeiDou, GQ QZSS…): receivers differ in which they send, never in the fields.
import type { FixQuality } from '../api-position.ts';

/** A sentence whose checksum was right: its talker ('GP', 'GN'…), its type ('GGA'…) and its fields after the address. */
export interface Sentence {
  talker: string;
  type: string;
  fields: string[];
}

/** The longest sentence NMEA 0183 allows is 82 characters with its $ and CR LF; receivers' own sentences run longer. */
export const NMEA_MAX_SENTENCE = 82;

/** The checksum of a sentence's body (between $ and *): its characters' XOR, as two upper-case hex digits. */
export function nmeaChecksum(body: string): string {
  let x = 0;
  for (let i = 0; i < body.length; i++) x ^= body.charCodeAt(i);
  return x.toString(16).toUpperCase().padStart(2, '0');
}

/** `body` made a sentence: $, the body, * and its checksum (what a receiver sends, without the CR LF). */
export const nmeaSentence = (body: string): string => `$${body}*${nmeaChecksum(body)}`;

const ADDRESS = /^[A-Z]{2}[A-Z]{3}$/;
// Printable ASCII but the delimiters: a byte of line noise inside a sentence fails here even when its XOR happens to match.
const BODY = /^[\x20-\x7e]+$/;

/**
 * A line's sentence, or null: it must start with $, end with *HH (hex, either case) matching the XOR of its body,
 * and hold only printable ASCII. A sentence without a checksum is refused: NMEA makes it optional only for sentences
 * a position is not taken from, and a position from a garbled line is worse than none. Proprietary sentences ($P…)
 * and encapsulated ones (!AIVDM) are refused too: nothing here reads them.
 */
export function parseSentence(line: string): Sentence | null {
  const star = line.length - 3;
  if (line.charCodeAt(0) !== 36 /* $ */ || star < 1 || line[star] !== '*') return null;
  const body = line.slice(1, star);
  if (!BODY.test(body) || body.includes('$') || body.includes('*')) return null;
  if (line.slice(star + 1).toUpperCase() !== nmeaChecksum(body)) return null;
  const fields = body.split(',');
  const address = fields.shift()!;
  if (!ADDRESS.test(address)) return null;
  return { talker: address.slice(0, 2), type: address.slice(2), fields };
}

/** A number field, or null when empty or not a number. */
export function num(field: string | undefined): number | null {
  if (field === undefined || field.trim() === '') return null;
  const n = Number(field);
  return Number.isFinite(n) ? n : null;
}

/** ddmm.mmmm (latitude) or dddmm.mmmm (longitude) with its hemisphere, in signed degrees; null when missing or out of range. */
export function angle(value: string | undefined, hemisphere: string | undefined, degreeDigits: 2 | 3): number | null {
  if (!value || !/^\d+(\.\d*)?$/.test(value)) return null;
  const dot = value.indexOf('.');
  const whole = dot < 0 ? value.length : dot;
  if (whole !== degreeDigits + 2) return null;
  const deg = Number(value.slice(0, degreeDigits));
  const min = Number(value.slice(degreeDigits));
  if (min >= 60) return null;
  const v = deg + min / 60;
  const max = degreeDigits === 2 ? 90 : 180;
  if (v > max) return null;
  if (hemisphere === 'N' || hemisphere === 'E') return v;
  if (hemisphere === 'S' || hemisphere === 'W') return v === 0 ? 0 : -v;
  return null;
}

/** hhmmss(.ss): the UTC time of day, kept as seconds since midnight; null when malformed. */
export function timeOfDay(field: string | undefined): number | null {
  const m = field ? /^(\d\d)(\d\d)(\d\d(?:\.\d+)?)$/.exec(field) : null;
  if (!m) return null;
  const h = Number(m[1]), mi = Number(m[2]), s = Number(m[3]);
  // 60 s: a leap second.
  return h < 24 && mi < 60 && s < 61 ? h * 3600 + mi * 60 + s : null;
}

/** GGA's quality indicator in words: 0 none, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 estimated (dead reckoning), 7 manual, 8 simulation. */
export const GGA_QUALITY: readonly FixQuality[] = ['none', 'gps', 'dgps', 'pps', 'rtk-fixed', 'rtk-float', 'estimated', 'manual', 'simulation'];

export interface Gga {
  time: number | null;
  lat: number | null;
  lon: number | null;
  quality: FixQuality;
  satellites: number | null;
  hdop: number | null;
  /** Metres above mean sea level. */
  altitude: number | null;
}

/** GGA: time, lat, N/S, lon, E/W, quality, satellites used, HDOP, altitude, M, geoid separation, M, age of DGPS, station. */
export function parseGga(f: string[]): Gga | null {
  if (f.length < 9) return null;
  const q = num(f[5]);
  const quality = q !== null && Number.isInteger(q) && q >= 0 && q < GGA_QUALITY.length ? GGA_QUALITY[q]! : 'none';
  const sats = num(f[6]);
  const hdop = num(f[7]);
  return {
    time: timeOfDay(f[0]), lat: angle(f[1], f[2], 2), lon: angle(f[3], f[4], 3), quality,
    satellites: sats !== null && Number.isInteger(sats) && sats >= 0 ? sats : null,
    hdop: hdop !== null && hdop >= 0 ? hdop : null,
    altitude: f[9] === undefined || f[9] === 'M' ? num(f[8]) : null,
  };
}

/** RMC's mode indicator (NMEA 2.3 and later) in words: A autonomous, D differential, R RTK fixed, F RTK float, E estimated, M manual, S simulation, N none, P precise. */
const RMC_MODE: Record<string, FixQuality> = { A: 'gps', D: 'dgps', P: 'pps', R: 'rtk-fixed', F: 'rtk-float', E: 'estimated', M: 'manual', S: 'simulation', N: 'none' };

export interface Rmc {
  time: number | null;
  /** The UTC date as days since the epoch; null when missing. */
  day: number | null;
  /** Status A (valid) and a mode other than N. */
  valid: boolean;
  lat: number | null;
  lon: number | null;
  /** m/s. */
  speed: number | null;
  /** Degrees from true north. */
  course: number | null;
  /** From the mode indicator (or the status alone, for an older receiver). */
  quality: FixQuality;
}

const KNOT = 1852 / 3600;

/** ddmmyy as days since 1970-01-01 (years 80–99 in the 1900s, the rest in the 2000s, as gpsd reads them). */
export function dayOf(field: string | undefined): number | null {
  const m = field ? /^(\d\d)(\d\d)(\d\d)$/.exec(field) : null;
  if (!m) return null;
  const d = Number(m[1]), mo = Number(m[2]), y = Number(m[3]);
  if (d < 1 || d > 31 || mo < 1 || mo > 12) return null;
  return Date.UTC(y < 80 ? 2000 + y : 1900 + y, mo - 1, d) / 86_400_000;
}

/** RMC: time, status, lat, N/S, lon, E/W, speed (knots), course, date, magnetic variation, E/W, mode, nav status. */
export function parseRmc(f: string[]): Rmc | null {
  if (f.length < 9) return null;
  const status = f[1];
  const mode = f[11]?.[0];
  const valid = status === 'A' && mode !== 'N';
  const knots = num(f[6]);
  const course = num(f[7]);
  return {
    time: timeOfDay(f[0]), day: dayOf(f[8]), valid, lat: angle(f[2], f[3], 2), lon: angle(f[4], f[5], 3),
    speed: knots !== null && knots >= 0 ? knots * KNOT : null,
    course: course !== null && course >= 0 && course <= 360 ? course % 360 : null,
    quality: !valid ? 'none' : (mode && RMC_MODE[mode]) || 'gps',
  };
}

export interface Gsa {
  /** 1 no fix, 2 2D, 3 3D. */
  fixType: 1 | 2 | 3 | null;
  /** The satellites used (their PRNs). */
  used: number[];
  pdop: number | null;
  hdop: number | null;
  vdop: number | null;
}

/** GSA: mode (M/A), fix type, 12 PRNs, PDOP, HDOP, VDOP (and, from NMEA 4.10, a system id). */
export function parseGsa(f: string[]): Gsa | null {
  if (f.length < 17) return null;
  const t = num(f[1]);
  const used: number[] = [];
  for (let i = 2; i < 14; i++) {
    const p = num(f[i]);
    if (p !== null) used.push(p);
  }
  return { fixType: t === 1 || t === 2 || t === 3 ? t : null, used, pdop: num(f[14]), hdop: num(f[15]), vdop: num(f[16]) };
}

export interface Gst {
  time: number | null;
  /** The standard deviations (one sigma, metres) of the latitude, longitude and altitude errors. */
  latSigma: number | null;
  lonSigma: number | null;
  altSigma: number | null;
}

/** GST: time, RMS of the pseudorange residuals, error ellipse's semi-major, semi-minor and orientation, σ lat, σ lon, σ alt. */
export function parseGst(f: string[]): Gst | null {
  if (f.length < 8) return null;
  const sigma = (s: string | undefined) => {
    const v = num(s);
    return v !== null && v >= 0 ? v : null;
  };
  return { time: timeOfDay(f[0]), latSigma: sigma(f[5]), lonSigma: sigma(f[6]), altSigma: sigma(f[7]) };
}

export interface Gsv {
  /** How many GSV sentences this system's group has, and which one this is. */
  total: number;
  number: number;
  /** Satellites in view of this system (the talker's). */
  inView: number;
}

/** GSV: number of sentences, sentence number, satellites in view, then up to 4 × (PRN, elevation, azimuth, SNR) (and a signal id from NMEA 4.10). */
export function parseGsv(f: string[]): Gsv | null {
  if (f.length < 3) return null;
  const total = num(f[0]), number = num(f[1]), inView = num(f[2]);
  if (total === null || number === null || inView === null || total < 1 || number < 1 || number > total || inView < 0) return null;
  return { total, number, inView };
}
