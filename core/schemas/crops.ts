import { Type, type Static } from '@sinclair/typebox';
import { DateOnly, DateTime, IntegerId, Nullable, Offset, Uuid } from './common.ts';

export const CropFamily = Type.Object({
  id: IntegerId,
  key: Uuid,
  name: Type.String(),
  observation: Type.String(),
});
export type CropFamily = Static<typeof CropFamily>;

/** On write a family is either an existing one by id, or a name (found case-insensitively or created). */
export const CropFamilyInput = Type.Union([
  Type.Object({ id: IntegerId }, { additionalProperties: false }),
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 120 }),
    observation: Type.Optional(Type.String({ maxLength: 2000 })),
  }, { additionalProperties: false }),
]);
export const CropFamilyCreateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  observation: Type.Optional(Type.String({ maxLength: 2000 })),
}, { additionalProperties: false });

const writable = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  campaign: Type.Optional(Nullable(Type.String({ maxLength: 120 }))),
  area: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
  variety: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  harvested_qty: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
  sowing: Type.Optional(Nullable(DateOnly)),
  closure: Type.Optional(Nullable(DateOnly)),
  is_active: Type.Optional(Type.Boolean()),
  parcel: Type.Optional(Nullable(IntegerId)),
  family: Type.Optional(Nullable(CropFamilyInput)),
};
export const CropCreateRequest = Type.Object(writable, { additionalProperties: false });
export type CropCreateRequest = Static<typeof CropCreateRequest>;
export const CropPatchRequest = Type.Object(writable, { additionalProperties: false });
export type CropPatchRequest = Static<typeof CropPatchRequest>;

export const Crop = Type.Object({
  id: IntegerId,
  key: Uuid,
  family: Nullable(CropFamily),
  name: Nullable(Type.String()),
  campaign: Nullable(Type.String()),
  area: Nullable(Type.Number()),
  variety: Nullable(Type.String()),
  harvested_qty: Nullable(Type.Number()),
  sowing: Nullable(DateOnly),
  closure: Nullable(DateOnly),
  is_active: Type.Boolean(),
  created: DateTime,
  modified: DateTime,
  parcel: Nullable(IntegerId),
});
export type Crop = Static<typeof Crop>;

export const CropPage = Type.Object({
  count: Type.Integer(),
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
  results: Type.Array(Crop),
});

export const CropListQuery = Type.Object({
  parcel: Type.Optional(IntegerId),
  is_active: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Offset),
}, { additionalProperties: false });
