// The crop rules the service enforces, so the mirror refuses locally what the service would refuse.

export interface CropFields {
  name?: string | null;
  campaign?: string | null;
  area?: number | null;
  variety?: string | null;
  harvested_qty?: number | null;
  sowing?: string | null;
  closure?: string | null;
  is_active?: boolean;
}

export interface CropProblem { path: string; code: string; message: string }

const STRINGS: Record<string, number> = { name: 255, campaign: 120, variety: 255 };
const NUMBERS = ['area', 'harvested_qty'] as const;
const DATES = ['sowing', 'closure'] as const;
const KNOWN = new Set([...Object.keys(STRINGS), ...NUMBERS, ...DATES, 'is_active']);

/** A real calendar date written YYYY-MM-DD (2024-02-30 is not). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

export function validateCropFields(input: Record<string, unknown>, current: CropFields = {}): CropProblem[] {
  const problems: CropProblem[] = [];
  for (const [k, v] of Object.entries(input)) {
    if (!KNOWN.has(k)) { problems.push({ path: k, code: 'unknown_field', message: `unknown crop field '${k}'` }); continue; }
    if (v === null || v === undefined) {
      if (k === 'is_active' && v === null) problems.push({ path: k, code: 'type', message: 'is_active must be true or false' });
      continue;
    }
    if (k in STRINGS && (typeof v !== 'string' || v.length > STRINGS[k]!)) {
      problems.push({ path: k, code: 'type', message: `${k} must be text of at most ${STRINGS[k]} characters` });
    } else if ((NUMBERS as readonly string[]).includes(k) && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
      problems.push({ path: k, code: 'minimum', message: `${k} must be a number ≥ 0` });
    } else if ((DATES as readonly string[]).includes(k) && (typeof v !== 'string' || !isCalendarDate(v))) {
      problems.push({ path: k, code: 'format', message: `${k} must be a date written YYYY-MM-DD` });
    } else if (k === 'is_active' && typeof v !== 'boolean') {
      problems.push({ path: k, code: 'type', message: 'is_active must be true or false' });
    }
  }
  const sowing = (input.sowing !== undefined ? input.sowing : current.sowing) as string | null | undefined;
  const closure = (input.closure !== undefined ? input.closure : current.closure) as string | null | undefined;
  if (typeof sowing === 'string' && typeof closure === 'string' && isCalendarDate(sowing) && isCalendarDate(closure) && closure < sowing) {
    problems.push({ path: 'closure', code: 'closure_before_sowing', message: `closure (${closure}) is before sowing (${sowing})` });
  }
  return problems;
}
