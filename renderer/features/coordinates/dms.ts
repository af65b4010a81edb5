// A position typed in degrees, minutes and seconds, as maps, deeds and GPS screens print it: "37°22'48"N 5°58'48"W",
// "37 22 48 N, 5 58 48 W", "N 37°22'48.5" W 5°58'48"", "37d22m48sN 5d58m48sW", or decimal minutes "37°22.8'N". The
// hemisphere letters (N, S, E, W, before or after each, in either case) say which number is the latitude, so the
// order does not matter and no swap is ever guessed; without them the text is not read as DMS (lon-lat.ts reads plain
// numbers). Symbols: ° º d for degrees, ' ′ ’ m for minutes, " ″ ” '' s for seconds, or spaces alone.
import type { LonLat } from './lon-lat.ts';

type Unit = 'd' | 'm' | 's';
type Token = { n: number; text: string; unit: Unit | null } | { hemi: 'N' | 'S' | 'E' | 'W' };

const UNIT: Record<string, Unit> = { '°': 'd', 'º': 'd', d: 'd', "'": 'm', '′': 'm', '’': 'm', m: 'm', '"': 's', '″': 's', '”': 's', "''": 's', s: 's' };

/** Whether `text` is meant as DMS: a hemisphere letter or a degree, minute or second symbol. */
export const looksLikeDms = (text: string): boolean => /[NSEWnsew°º'′’"″”]|\d\s*[dm]\b|\dd\d/.test(text);

// A number (decimal point or comma), then perhaps its unit; or a hemisphere letter. Lower-case d, m and s are units
// only right after a number (so "48s" is seconds, "48 S" south); "''" is seconds (two primes).
const TOKEN = /\s*(?:(\d+(?:[.,]\d+)?)\s*(''|[°º'′’"″”]|[dms](?![a-z]))?|([NSEWnsew])(?![a-z])|([,;]))/y;

function tokens(text: string): Token[] | string {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  const t = text.trim();
  while (TOKEN.lastIndex < t.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(t);
    if (!m) return `"${t.slice(at).trim().slice(0, 12)}" is not part of a position in degrees, minutes and seconds`;
    if (m[1] !== undefined) {
      // A unit letter right after a number (no space): "48s" seconds; after a space, a hemisphere ("48 s" south).
      const unitText = m[2];
      const spaced = unitText !== undefined && /[dms]/.test(unitText) && /\s$/.test(m[0].slice(0, m[0].length - 1));
      if (spaced && unitText === 's') { out.push({ n: Number(m[1].replace(',', '.')), text: m[1], unit: null }, { hemi: 'S' }); continue; }
      out.push({ n: Number(m[1].replace(',', '.')), text: m[1], unit: unitText ? UNIT[unitText]! : null });
    } else if (m[3] !== undefined) out.push({ hemi: m[3].toUpperCase() as 'N' | 'S' | 'E' | 'W' });
  }
  return out;
}

interface Part { hemi: 'N' | 'S' | 'E' | 'W'; numbers: { n: number; text: string; unit: Unit | null }[] }

/** Degrees of one coordinate from its numbers: by their symbols, else in order (degrees, minutes, seconds). */
function degrees(p: Part): number | string {
  const nums = p.numbers;
  if (nums.length === 0 || nums.length > 3) return `${nums.length === 0 ? 'No' : 'Too many'} numbers before or after ${p.hemi}: type degrees, minutes and seconds, such as 37°22'48"N`;
  const order: Unit[] = ['d', 'm', 's'];
  const units = nums.map((x, i) => x.unit ?? order[i]!);
  if (units.some((u, i) => i > 0 && order.indexOf(u) <= order.indexOf(units[i - 1]!)) || units[0] !== 'd') {
    return `The numbers of ${p.hemi} are not degrees, then minutes, then seconds`;
  }
  const value: Record<Unit, number> = { d: 0, m: 0, s: 0 };
  for (let i = 0; i < nums.length; i++) {
    // Only the last number may have decimals: "37.5°22'" means nothing.
    if (i < nums.length - 1 && /[.,]/.test(nums[i]!.text)) return `Only the last number of ${p.hemi} may have decimals (${nums[i]!.text})`;
    value[units[i]!] = nums[i]!.n;
  }
  if (value.m >= 60) return `${value.m} minutes: minutes go up to 59`;
  if (value.s >= 60) return `${value.s} seconds: seconds go up to 59.999…`;
  return value.d + value.m / 60 + value.s / 3600;
}

/**
 * [lon, lat] of a DMS position, or why not: both coordinates with their hemisphere letters, one N or S and one E or W,
 * letters all before their numbers or all after.
 */
export function parseDms(text: string): { pos: LonLat } | { error: string } {
  if (/[-−]/.test(text)) {
    return { error: /[NSEWnsew]/.test(text) ? 'A minus sign and a hemisphere letter together: type one or the other (5°58\'48"W, not -5°58\'48"W).' : 'Degrees, minutes and seconds take hemisphere letters, not a minus sign: 5°58\'48"W.' };
  }
  const tk = tokens(text);
  if (typeof tk === 'string') return { error: `${tk}.` };
  const before = tk.length > 0 && 'hemi' in tk[0]!;
  const parts: Part[] = [];
  let open: Part['numbers'] = [];
  for (const t of tk) {
    if ('hemi' in t) {
      if (before) parts.push({ hemi: t.hemi, numbers: [] });
      else { parts.push({ hemi: t.hemi, numbers: open }); open = []; }
    } else if (before) parts[parts.length - 1]!.numbers.push(t);
    else open.push(t);
  }
  if (open.length) return { error: 'Numbers after the last hemisphere letter: put N, S, E or W after each coordinate, or before each.' };
  if (parts.length !== 2) return { error: `Type a latitude and a longitude, each with its hemisphere (N or S, E or W), such as 37°22'48"N 5°58'48"W.` };
  const lat = parts.find((p) => p.hemi === 'N' || p.hemi === 'S');
  const lon = parts.find((p) => p.hemi === 'E' || p.hemi === 'W');
  if (!lat || !lon) return { error: `Two ${parts[0]!.hemi === 'N' || parts[0]!.hemi === 'S' ? 'latitudes (N, S)' : 'longitudes (E, W)'}: one coordinate needs N or S, the other E or W.` };
  const la = degrees(lat);
  const lo = degrees(lon);
  if (typeof la === 'string') return { error: `${la}.` };
  if (typeof lo === 'string') return { error: `${lo}.` };
  if (la > 90) return { error: `Latitude ${la.toFixed(6).replace(/\.?0+$/, '')}° is beyond 90°.` };
  if (lo > 180) return { error: `Longitude ${lo.toFixed(6).replace(/\.?0+$/, '')}° is beyond 180°.` };
  return { pos: [lon.hemi === 'W' ? -lo : lo, lat.hemi === 'S' ? -la : la] };
}

/** A [lon, lat] as DMS to a tenth of a second (about 3 m), latitude first as DMS is written: 37°22'48.0"N 5°58'48.0"W. */
export function formatDms([lon, lat]: LonLat): string {
  const one = (v: number, pos: string, neg: string) => {
    const tenths = Math.round(Math.abs(v) * 36000);
    const d = Math.floor(tenths / 36000);
    const m = Math.floor((tenths % 36000) / 600);
    const s = (tenths % 600) / 10;
    return `${d}°${String(m).padStart(2, '0')}'${s.toFixed(1).padStart(4, '0')}"${v < 0 ? neg : pos}`;
  };
  return `${one(lat, 'N', 'S')} ${one(lon, 'E', 'W')}`;
}
