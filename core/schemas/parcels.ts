import { Type, type Static } from '@sinclair/typebox';
import {
  BBox, Cursor, DateTime, IntegerId, MAX_METADATA_FILTERS, MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUES,
  MAX_METADATA_FILTER_VALUE_LENGTH, Metadata, MetadataFilterParams, Nullable, PointGeometry, PolygonGeometry, Position, Search, Uuid,
} from './common.ts';

// Request shapes are documented here; the service validates parcel inputs with core/parcels/validate.ts,
// which reports every problem with the parcel's index rather than Ajv's first error.
export const ParcelGeomInput = Type.Object({
  type: Type.Literal('Feature'),
  properties: Type.Optional(Nullable(Type.Object({
    metadata: Type.Optional(Type.Object({ hectares: Type.Optional(Type.Number({ exclusiveMinimum: 0 })) }, { additionalProperties: true })),
  }, { additionalProperties: true }))),
  geometry: Type.Union([PolygonGeometry, PointGeometry]),
  id: Type.Optional(Type.Unknown()),
  bbox: Type.Optional(BBox),
});

export const ParcelInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  metadata: Type.Optional(Metadata),
  geom: ParcelGeomInput,
}, { additionalProperties: false });
export type ParcelInput = Static<typeof ParcelInput>;

export const BulkCreateRequest = Type.Object({
  farm: Type.Object({ id: IntegerId }),
  parcels: Type.Array(ParcelInput, { minItems: 1, maxItems: 50 }),
}, { additionalProperties: false });
export type BulkCreateRequest = Static<typeof BulkCreateRequest>;

export const ParcelPatchRequest = Type.Object({
  id: Type.Optional(IntegerId),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  metadata: Type.Optional(Metadata),
  geom: Type.Optional(ParcelGeomInput),
}, { additionalProperties: false, description: 'metadata replaces the whole metadata object' });
export type ParcelPatchRequest = Static<typeof ParcelPatchRequest>;

export const ParcelProperties = Type.Object({
  key: Uuid,
  name: Type.String(),
  farm: IntegerId,
  hectares: Type.Number({ description: 'Geodesic area on WGS84 for polygons; the requested hectares for points' }),
  metadata: Metadata,
  source_type: Type.Union([Type.Literal('Polygon'), Type.Literal('Point')], { description: 'The geometry type sent on creation' }),
  point: Nullable(Position),
  center: Position,
  created: DateTime,
  modified: DateTime,
});

export const ParcelFeature = Type.Object({
  type: Type.Literal('Feature'),
  id: IntegerId,
  bbox: BBox,
  geometry: PolygonGeometry,
  properties: ParcelProperties,
});
export type ParcelFeature = Static<typeof ParcelFeature>;

export const ParcelCollection = Type.Object({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(ParcelFeature),
  count: Type.Integer({ description: 'Number of parcels matching the filters (all pages)' }),
  next: Nullable(Type.String({ description: 'URL of the next page, or null on the last page' })),
});
export type ParcelCollection = Static<typeof ParcelCollection>;

export const MAX_PARCEL_PAGE = 10_000;
// Written out, not by toLocaleString (as common.ts's Offset): its first call, here at module load, loaded ICU's locale
// data into every process loading the schemas, ~6 ms of an unchanged pull's CPU.
export const PageLimit = Type.Integer({ minimum: 1, maximum: MAX_PARCEL_PAGE, description: 'Parcels per page (at most 10,000)' });

export const ParcelListQuery = Type.Object({
  farm: Type.Optional(IntegerId),
  search: Type.Optional(Search),
  bbox: Type.Optional(Type.String({ maxLength: 100, pattern: '^-?[0-9.]+,-?[0-9.]+,-?[0-9.]+,-?[0-9.]+$', description: 'minLon,minLat,maxLon,maxLat in degrees (longitudes within ±180, latitudes within ±90)' })),
  limit: Type.Optional({ ...PageLimit, default: 1000 }),
  after: Type.Optional(Cursor),
}, {
  // The metadata filters are the only other parameters (service/store/parcel-list.ts reads them); anything else is
  // refused, `metadata[]` included.
  patternProperties: MetadataFilterParams,
  additionalProperties: false,
  description: `Also metadata[<key>]=<value> filters (AND across keys, either value for a repeated key; spaces in keys written as +): at most ${MAX_METADATA_FILTERS} keys and ${MAX_METADATA_FILTER_VALUES} values, keys up to ${MAX_METADATA_FILTER_KEY_LENGTH} and values up to ${MAX_METADATA_FILTER_VALUE_LENGTH} characters`,
});

/** GET /api/farms/{id}/parcels/: without limit every parcel (streamed); with limit one page and an absolute next. */
export const FarmParcelsQuery = Type.Object({
  limit: Type.Optional(PageLimit),
  after: Type.Optional(Cursor),
}, { additionalProperties: false });
