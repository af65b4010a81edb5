import { Type, type Static } from '@sinclair/typebox';
import { DateTime, IntegerId } from './common.ts';
import { AccountId } from './accounts.ts';
import { ParcelFeature, ParcelInput } from './parcels.ts';

export const FarmName = Type.String({ minLength: 1, maxLength: 255 });

export const Farm = Type.Object({
  id: IntegerId,
  name: Type.String(),
  account: AccountId,
  parcel_count: Type.Integer(),
  hectares: Type.Number(),
  created: DateTime,
  modified: DateTime,
});
export type Farm = Static<typeof Farm>;

export const FarmCreateRequest = Type.Object({
  farm: Type.Object({ name: FarmName }, { additionalProperties: false }),
  parcels: Type.Optional(Type.Array(ParcelInput, { maxItems: 50 })),
}, { additionalProperties: false });
export type FarmCreateRequest = Static<typeof FarmCreateRequest>;

export const FarmCreateResponse = Type.Composite([Farm, Type.Object({ parcels: Type.Array(ParcelFeature) })]);
export type FarmCreateResponse = Static<typeof FarmCreateResponse>;

export const FarmPatchRequest = Type.Object({ name: FarmName }, { additionalProperties: false });
