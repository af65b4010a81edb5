// Features (as GeoJSON objects, whatever the file format was) → parcel inputs for MirrorWriter.createParcels.
// Only the shape is converted here; every rule of what makes a valid parcel stays in core/parcels/validate.ts,
// so an imported parcel is held to exactly the rules the service applies.

import { ESCAPE_PREFIX, GEOJSON_FIELDS } from './furrow-format.ts';

export interface ParcelInput {
  name: string;
  metadata: Record<string, unknown>;
  geom: { type: 'Feature'; properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } };
}

/**
 * Where a parcel input came from: the feature's index in the file, its part (1-based) of a split MultiPolygon, and
 * the name the file gives it (if any), so that a problem names the feature the user knows.
 */
export interface Origin { index: number; part: number; parts: number; name?: string }

/** "Feature 2 'Pozo'", the way problems name a feature. */
export const featureLabel = (index: number, name?: string): string => `Feature ${index}${name === undefined ? '' : ` '${name}'`}`;

export interface ImportProblem {
  /** The feature's 0-based index in the file (features array, placemark or shapefile record order). */
  index: number;
  /** For one part of a split MultiPolygon: which (1-based). */
  part?: number;
  code: string;
  message: string;
}

/**
 * First of these that holds a non-blank string (or a number) names the parcel. The capitalised forms of
 * nombre and label are there because DBF column names are usually upper case.
 */
export const NAME_KEYS = ['name', 'Name', 'NAME', 'nombre', 'Nombre', 'NOMBRE', 'label', 'Label', 'LABEL'] as const;
/** First of these that is present gives a Point parcel its area. */
export const HECTARES_KEYS = ['hectares', 'Hectares', 'HECTARES'] as const;

export interface ConvertOptions {
  farmName: string;
  /** The file is a Furrow export: drop its own fields and unescape metadata keys (see furrow-format.ts). */
  furrowExport: boolean;
}

export interface Converted { inputs: ParcelInput[]; origins: Origin[]; problems: ImportProblem[] }

/**
 * On a feature whose coordinates could not be reprojected to WGS84 (crs-source.ts): why, for its problem. A symbol:
 * no file's property can set it, and such features never leave the thread that read them (only split WGS84
 * GeoJSON goes to worker threads).
 */
export const NOT_REPROJECTED = Symbol('not reprojected');

/** `firstIndex`: the file index of features[0], when converting a slice of the file's features. */
export function toParcelInputs(features: readonly unknown[], opts: ConvertOptions, firstIndex = 0): Converted {
  const out: Converted = { inputs: [], origins: [], problems: [] };
  for (let i = 0; i < features.length; i++) convertFeature(features[i], firstIndex + i, opts, out);
  return out;
}

function convertFeature(feature: unknown, index: number, opts: ConvertOptions, out: Converted): void {
  const props = isObject(feature) && isObject(feature['properties']) ? feature['properties'] : {};
  const { name: ownName, key: nameKey } = pickName(props);
  const fail = (code: string, detail: string) => out.problems.push({ index, code, message: `${featureLabel(index, ownName)}: ${detail}` });
  if (!isObject(feature) || feature['type'] !== 'Feature') {
    fail('geom_not_feature', 'is not a GeoJSON Feature');
    return;
  }
  const unprojected = (feature as Record<symbol, unknown>)[NOT_REPROJECTED];
  if (typeof unprojected === 'string') {
    fail('reprojection_failed', unprojected);
    return;
  }
  const geometry = feature['geometry'];
  if (!isObject(geometry)) {
    fail('geom_not_feature', 'has no geometry');
    return;
  }
  const type = geometry['type'];
  const coordinates = geometry['coordinates'];
  const name = ownName ?? `${opts.farmName} ${index + 1}`;
  const skip = new Set<string>(nameKey === undefined ? [] : [nameKey]);

  if (type === 'Point') {
    const hectares = pickHectares(props);
    if (hectares.key !== undefined) skip.add(hectares.key);
    const metadata = toMetadata(props, skip, opts.furrowExport, hectares.nested);
    if (outOfRange(metadata, fail)) return;
    // The service's own form for a point's area; a point without it is left for the core to refuse (hectares_missing).
    const properties = hectares.value === undefined ? {} : { metadata: { hectares: hectares.value } };
    push(out, { name, metadata, geom: { type: 'Feature', properties, geometry: { type, coordinates } } }, { index, part: 1, parts: 1, name: ownName });
    return;
  }
  if (type === 'Polygon' || (type === 'MultiPolygon' && !Array.isArray(coordinates))) {
    // A MultiPolygon whose coordinates are not even an array: let the core's polygon check say what is wrong.
    const metadata = toMetadata(props, skip, opts.furrowExport, false);
    if (outOfRange(metadata, fail)) return;
    push(out, polygonInput(name, metadata, coordinates), { index, part: 1, parts: 1, name: ownName });
    return;
  }
  if (type === 'MultiPolygon') {
    const polygons = coordinates as unknown[];
    if (polygons.length === 0) {
      fail('ring_too_short', 'the MultiPolygon has no polygons');
      return;
    }
    const metadata = toMetadata(props, skip, opts.furrowExport, false);
    if (outOfRange(metadata, fail)) return;
    if (polygons.length === 1) {
      push(out, polygonInput(name, metadata, polygons[0]), { index, part: 1, parts: 1, name: ownName });
      return;
    }
    const parts = polygons.length;
    polygons.forEach((coords, k) => {
      // Each part gets its own copy of the metadata: the rows must not share one mutable object.
      push(out, polygonInput(`${name} (part ${k + 1} of ${parts})`, { ...metadata }, coords), { index, part: k + 1, parts, name: ownName });
    });
    return;
  }
  fail('geometry_type', `a ${typeof type === 'string' ? type : 'geometry of unknown type'} cannot be a parcel; only Polygon, MultiPolygon and Point (with hectares) can`);
}

function polygonInput(name: string, metadata: Record<string, unknown>, coordinates: unknown): ParcelInput {
  return { name, metadata, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } } };
}

function push(out: Converted, input: ParcelInput, origin: Origin): void {
  out.inputs.push(input);
  out.origins.push(origin);
}

/** The name a file gives a feature (the first of NAME_KEYS that holds one), as its problems and previews name it. */
export const featureName = (feature: unknown): string | undefined =>
  (isObject(feature) && isObject(feature['properties']) ? pickName(feature['properties']).name : undefined);

function pickName(props: Record<string, unknown>): { name?: string; key?: string } {
  for (const key of NAME_KEYS) {
    const v = props[key];
    const s = typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';
    if (s !== '') return { name: s, key };
  }
  return {};
}

/**
 * The point's hectares: a top-level property, else the service's own form nested in a `metadata` object.
 * Numeric strings count (KML and DBF text fields carry numbers as text); anything else is passed on as it
 * is, so the core's message quotes what the file held.
 */
function pickHectares(props: Record<string, unknown>): { value?: unknown; key?: string; nested: boolean } {
  for (const key of HECTARES_KEYS) {
    const v = props[key];
    if (v !== undefined && v !== null && v !== '') return { value: numeric(v), key, nested: false };
  }
  const nested = props['metadata'];
  if (isObject(nested) && nested['hectares'] !== undefined && nested['hectares'] !== null) {
    return { value: numeric(nested['hectares']), nested: true };
  }
  return { nested: false };
}

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const numeric = (v: unknown): unknown => (typeof v === 'string' && NUMBER.test(v) ? Number(v) : v);

/**
 * Properties → metadata. Strings, finite numbers and booleans are kept; null, undefined and NaN are dropped
 * (they hold nothing), an infinite number (1e400 in the file) refuses the feature (see outOfRange); dates become ISO dates; other objects and arrays are kept as
 * their JSON text, since metadata values are scalars. A `metadata` object (the service's own feature
 * form) is merged in, under the top-level properties. Null-prototype: a "__proto__" key stays a key.
 */
function toMetadata(props: Record<string, unknown>, skip: ReadonlySet<string>, furrowExport: boolean, dropNestedHectares: boolean): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  const nested = props['metadata'];
  if (isObject(nested)) {
    for (const [k, v] of Object.entries(nested)) {
      if (dropNestedHectares && k === 'hectares') continue;
      const value = scalar(v);
      if (value !== undefined) out[k] = value;
    }
  }
  // Keys rather than entries: an array of pairs per feature was most of this function's cost.
  for (const k of Object.keys(props)) {
    const v = props[k];
    if (skip.has(k) || (k === 'metadata' && isObject(nested))) continue;
    let key = k;
    if (furrowExport) {
      if ((GEOJSON_FIELDS as readonly string[]).includes(k)) continue;
      if (k.startsWith(ESCAPE_PREFIX)) key = k.slice(ESCAPE_PREFIX.length);
    }
    const value = scalar(v);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** A property value that cannot be kept: the feature is refused with why, never silently thinned. */
class BadValue {
  constructor(readonly code: 'metadata_out_of_range' | 'metadata_too_deep', readonly why: string) {}
}

function outOfRange(metadata: Record<string, unknown>, fail: (code: string, detail: string) => void): boolean {
  // Checked for every feature and almost never true: no array of entries unless there is a bad value.
  let any = false;
  for (const k in metadata) if (metadata[k] instanceof BadValue) any = true;
  if (!any) return false;
  const bad = Object.entries(metadata).filter((e): e is [string, BadValue] => e[1] instanceof BadValue);
  fail(bad[0]![1].code, bad.map(([k, b]) => `property '${k}' ${b.why}`).join('; '));
  return true;
}

function scalar(v: unknown): string | number | boolean | BadValue | undefined {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  // NaN holds nothing (dropped); an infinity is a number written too large (refused).
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v;
    return Number.isNaN(v) ? undefined : new BadValue('metadata_out_of_range', 'is a number too large for any parcel data (beyond ±1.8e308); write it as text ("1e400") to keep it');
  }
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : isoDate(v);
  if (typeof v === 'object' && v !== null) {
    try {
      return JSON.stringify(v);
    } catch (err) {
      // Arrays nested hundreds of thousands deep overflow the stack: a clear refusal, not a crash of the import.
      if (err instanceof RangeError) return new BadValue('metadata_too_deep', 'is nested too deeply to keep as text');
      throw err;
    }
  }
  return undefined;
}

/** DBF dates arrive as local midnight (the shapefile reader builds them so): keep the calendar date. */
function isoDate(d: Date): string {
  if (d.getHours() || d.getMinutes() || d.getSeconds() || d.getMilliseconds()) return d.toISOString();
  return `${String(d.getFullYear()).padStart(4, '0')}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
