// The embedded map's metadata filter (spec: "Embedded map filtering", `metadata[<key>]=<value>`), defined once for
// the service's listings and embedded map (service/store/sqlite/parcel-list.ts) and the desktop mirror's map
// (db/reader.ts viewportJson): both stores are SQLite, so the rule itself is one SQL condition, and a parcel the
// app shows under a filter is exactly one the embedded map shows under the same filter.
//
// The rule: several values for one key, any of them; several keys, all of them. A query string only carries text,
// so a stored value is compared by its canonical text: true/false as 'true'/'false', numbers as SQLite writes them
// (metadata[contract_year]=2024 finds 2024 and "2024" alike); null matches nothing. The sync engine's bookkeeping
// key (client-ref.ts REF_KEY) is never filtered on: a filter on it matches no parcel.
import { REF_KEY } from './client-ref.ts';

/** metadata key → the values accepted for it. */
export type MetadataFilter = Readonly<Record<string, readonly string[]>>;

/**
 * The SQL condition "the parcel's metadata (the JSON text in `column`) has `key` with one of `values`", with two
 * positional parameters: the key, then the values as a JSON array (metadataMatchParams).
 */
export const metadataMatchSql = (column: string): string => `EXISTS (SELECT 1 FROM json_each(${column}) j WHERE j.key = ? AND
  (CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(j.value AS TEXT) END) IN (SELECT value FROM json_each(?)))`;

/** The parameters of one key's metadataMatchSql. */
export const metadataMatchParams = (key: string, values: readonly string[]): [string, string] => [key, JSON.stringify(values)];

/** Whether a filter names the bookkeeping key, which no parcel is shown for. */
export const filtersOnRef = (filter: Iterable<string>): boolean => [...filter].includes(REF_KEY);

/** The filter's conditions as SQL (`AND`-joined, each with metadataMatchSql) and their parameters, in order. */
export function metadataFilterSql(column: string, filter: MetadataFilter | ReadonlyMap<string, readonly string[]>): { sql: string; params: string[] } {
  const entries = filter instanceof Map ? [...filter] : Object.entries(filter as MetadataFilter);
  const parts: string[] = [];
  const params: string[] = [];
  for (const [key, values] of entries) {
    parts.push(metadataMatchSql(column));
    params.push(...metadataMatchParams(key, values));
  }
  return { sql: parts.join(' AND '), params };
}

/**
 * The embedded map's address with the filter as the spec writes it: `metadata[<key>]=<value>` for each value, a space
 * in a key written as '+', everything else percent-encoded (a '+' of the key itself as %2B), appended to the account's
 * `embedded_url` (which carries its `auth_id`).
 */
export function embeddedMapUrl(embeddedUrl: string, filter: MetadataFilter): string {
  const pairs = Object.entries(filter).flatMap(([key, values]) =>
    values.map((v) => `metadata[${encodeURIComponent(key).replace(/%20/g, '+')}]=${encodeURIComponent(v)}`));
  if (!pairs.length) return embeddedUrl;
  return `${embeddedUrl}${embeddedUrl.includes('?') ? '&' : '?'}${pairs.join('&')}`;
}
