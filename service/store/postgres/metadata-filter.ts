// The embedded map's metadata filter (core/parcels/metadata-filter.ts) in PostgreSQL, with SQLite's answers. The rule
// compares a stored value's canonical text with the filter's values, and that text is SQLite's: a string as it is,
// true/false, and a number as SQLite's json_each writes it (an integer token that fits 64 bits as its digits, any
// other number as printf's "%!.15g", or "%!.17g" when 15 digits do not give the double back: 1e-7 is '1.0e-07').
// PostgreSQL has no such formatting, so the comparison is turned around: each filter value that is exactly SQLite's
// text of some double is turned into that double here, and the database compares numbers as numbers. The stored
// metadata is JSON.stringify's output (core/parcels/columns.ts), so the JSON text of a string is compared as well,
// which never needs to unescape it.

/** SQLite's text of a number stored by JSON.stringify (CAST(json_each.value AS TEXT)). */
export function sqliteNumberText(n: number): string {
  const s = String(n);
  if (/^-?\d+$/.test(s)) {
    const b = BigInt(s);
    if (b >= -(2n ** 63n) && b < 2n ** 63n) return b.toString();
  }
  let precision = 15;
  let e = n.toExponential(precision - 1);
  if (Number(e) !== n) e = n.toExponential((precision = 17) - 1);
  const [mantissa, exponentText] = e.split('e') as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  let out: string;
  if (exponent < -4 || exponent >= precision) {
    out = `${withPoint(digits.slice(0, 1), digits.slice(1))}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  } else if (exponent >= 0) {
    out = withPoint(digits.slice(0, exponent + 1), digits.slice(exponent + 1));
  } else {
    out = withPoint('0', '0'.repeat(-exponent - 1) + digits);
  }
  return negative ? `-${out}` : out;
}

/** "%!g": trailing zeros of the fraction dropped, but always a digit after the point. */
function withPoint(integer: string, fraction: string): string {
  return `${integer}.${fraction.replace(/0+$/, '') || '0'}`;
}

/** The doubles whose SQLite text is one of `values` (at most one each). */
export function numbersFor(values: readonly string[]): number[] {
  const out: number[] = [];
  for (const v of values) {
    const n = Number(v);
    if (v.trim() !== '' && Number.isFinite(n) && sqliteNumberText(n) === v) out.push(n);
  }
  return out;
}

/**
 * The filter as SQL conditions on the JSON text in `column`, AND-joined, and their parameters, numbered from
 * `first` ($first, $first+1, …).
 */
export function pgMetadataFilterSql(column: string, filter: ReadonlyMap<string, readonly string[]>, first: number): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  for (const [key, values] of filter) {
    parts.push(`EXISTS (SELECT 1 FROM json_each(${column}::json) j WHERE j.key = ${p(key)} AND CASE json_typeof(j.value)
      WHEN 'number' THEN (j.value::text)::float8 = ANY(${p(numbersFor(values))}::float8[])
      WHEN 'string' THEN j.value::text = ANY(${p(values.map((v) => JSON.stringify(v)))}::text[])
      WHEN 'boolean' THEN j.value::text = ANY(${p(values.filter((v) => v === 'true' || v === 'false'))}::text[])
      ELSE false END)`);
  }
  return { sql: parts.join(' AND '), params };
}
