// What Furrow's own exports look like, shared by the exporter and the importer so a GeoJSON export
// re-imports to the same names and metadata.
//
// An export flattens each parcel's metadata into the feature properties next to a few fields of its own
// (name, farm, hectares, server_id, local_id). Those fields are not metadata, so the importer must drop
// them again — but only in files it knows came from Furrow (the `furrow` member of the FeatureCollection);
// in anyone else's file a `farm` or `hectares` column is the user's data and is kept.
// A metadata key that would collide with one of the own fields, or that starts with the escape prefix
// itself, is written with the prefix ("metadata:name"), which makes the mapping reversible.

export const FURROW_MARKER = { format: 'furrow-parcels', version: 1 } as const;

/** The properties a GeoJSON export adds to every feature, in order. */
export const GEOJSON_FIELDS = ['name', 'farm', 'hectares', 'server_id', 'local_id'] as const;
/** The fixed CSV columns, in order; metadata columns follow. */
export const CSV_FIELDS = ['local_id', 'server_id', 'farm', 'name', 'hectares', 'wkt'] as const;

export const ESCAPE_PREFIX = 'metadata:';

/** The property name under which metadata key `key` is exported, given the export's own fields. */
export function exportKey(key: string, own: readonly string[]): string {
  return own.includes(key) || key.startsWith(ESCAPE_PREFIX) ? ESCAPE_PREFIX + key : key;
}

/** True when a parsed GeoJSON document carries the marker of a Furrow export. */
export function isFurrowExport(doc: unknown): boolean {
  if (typeof doc !== 'object' || doc === null) return false;
  const marker = (doc as Record<string, unknown>)['furrow'];
  return typeof marker === 'object' && marker !== null && (marker as Record<string, unknown>)['format'] === FURROW_MARKER.format;
}
