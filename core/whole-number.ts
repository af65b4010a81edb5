// A whole number typed by a person (a CLI argument, a FURROW_* setting), read strictly: digits only, within its
// range, never a NaN, a fraction or an exponent passed on (a NaN limit would turn the check it feeds off).

/** `text` as a whole number within [min, max] (spaces around it ignored), or null. */
export function wholeNumber(text: string, min: number, max: number): number | null {
  const s = text.trim();
  const n = /^\d+$/.test(s) ? Number(s) : NaN;
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}
