import { Type, type Static } from '@sinclair/typebox';
import { Cursor, DateTime, IntegerId, Nullable, PointGeometry, Ring, Search, Uuid } from './common.ts';

export const PlantShape = Type.Object({
  type: Type.Literal('Polygon'),
  coordinates: Type.Array(Ring, { minItems: 1 }),
});

export const PlantFeature = Type.Object({
  type: Type.Literal('Feature'),
  id: IntegerId,
  geometry: PointGeometry,
  properties: Type.Object({
    area: Type.String({ description: "Geodesic area of the plant's shape in square metres, as a decimal string with two places ('0.00' without a shape)" }),
    key: Uuid,
    shape: Nullable(PlantShape),
    info: Type.Unknown({ description: 'Free JSON carried from the detection import (any JSON value, or null)' }),
    created: DateTime,
    modified: DateTime,
    parcel: Nullable(IntegerId),
    crop: Nullable(IntegerId),
  }),
});
export type PlantFeature = Static<typeof PlantFeature>;

export const PlantCollection = Type.Object({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(PlantFeature),
  next: Type.Optional(Nullable(Type.String({ description: 'GET /api/plants/ only: absolute URL of the next page, or null on the last' }))),
});
export type PlantCollection = Static<typeof PlantCollection>;

export const PlantListQuery = Type.Object({
  search: Type.Optional(Search),
  parcel: Type.Optional(IntegerId),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50000, default: 10000 })),
  after: Type.Optional(Cursor),
}, { additionalProperties: false });
