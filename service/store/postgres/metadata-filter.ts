// The embedded map's metadata filter (core/parcels/metadata-filter.ts) in PostgreSQL, with SQLite's answers. The rule
// compares a stored value's canonical text with the filter's values, and that text is SQLite's: a string as it is,
// true/false, and a number as SQLite's json_each writes it (an integer token that fits 64 bits as its digits, any
// other number as SQLite's "%!.17g", which shortens some: 1e-7 is '1.0e-07', 49.47 '49.47', 3726.13187848748
// '3726.1318784874802').
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
  if (n === 0) return '0.0';
  const { digits, point } = sqliteDigits(Math.abs(n));
  const exponent = point - 1;
  let out: string;
  // "%!.17g": exponential below 1e-4 and from 1e17 on, the fraction's trailing zeros dropped but never its last digit.
  if (exponent < -4 || exponent > 16) {
    out = `${withPoint(digits.slice(0, 1), digits.slice(1))}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  } else if (exponent >= 0) {
    out = withPoint(digits.slice(0, exponent + 1).padEnd(exponent + 1, '0'), digits.slice(exponent + 1));
  } else {
    out = withPoint('0', '0'.repeat(-exponent - 1) + digits);
  }
  return n < 0 ? `-${out}` : out;
}

/**
 * The significant digits SQLite 3.53's sqlite3FpDecode(r, 17, 20) keeps, and where the point goes: 17 digits,
 * fewer when a shorter number ending in a run of 9s or 0s at the 14th-16th digit reads back as the same double
 * (49.47 rather than 49.469999999999999). SQLite starts from its own 18-digit approximation; this from the exact one.
 */
function sqliteDigits(r: number): { digits: string; point: number } {
  const [m, e] = r.toExponential(17).split('e') as [string, string];
  let z = m.replace('.', '').split('').map(Number);
  let point = Number(e) + 1;
  const n = z.length; // 18
  const readsBack = (v2: bigint, jj: number) => Number(`${v2}e${point - jj}`) === r;
  const prefix = (jj: number) => BigInt(z.slice(0, jj).join('') || '0');
  let round = 17;
  if (z[15] === 9 && z[14] === 9) {
    let jj = 14;
    while (jj > 0 && z[jj - 1] === 9) jj--;
    if (readsBack(jj === 0 ? 1n : prefix(jj) + 1n, jj)) round = jj + 1;
  } else if (point >= n || (z[15] === 0 && z[14] === 0 && z[13] === 0)) {
    let jj = 13;
    while (z[jj - 1] === 0) jj--;
    if (readsBack(prefix(jj), jj)) round = jj + 1;
  }
  const up = z[round]! >= 5;
  z = z.slice(0, round);
  if (up) {
    let j = round - 1;
    for (;;) {
      z[j]!++;
      if (z[j]! <= 9) break;
      z[j] = 0;
      if (j === 0) {
        z.unshift(1);
        point++;
        break;
      }
      j--;
    }
  }
  return { digits: z.join('').replace(/0+$/, '') || '0', point };
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
