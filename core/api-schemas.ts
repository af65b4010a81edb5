// The small schemas every part of the app's backend contract (core/api.ts and its sections) is built from.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const Obj = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: false });
export const Id = Type.String({ minLength: 1, maxLength: 100, description: 'A local id (uuid) of the mirror' });
export const AccountId = Type.String({ minLength: 1, maxLength: 100 });
export const Name = Type.String({ minLength: 1, maxLength: 255 });
export const Lon = Type.Number({ minimum: -180, maximum: 180 });
export const Lat = Type.Number({ minimum: -90, maximum: 90 });
export const Position = Type.Array(Type.Number(), { minItems: 2, maxItems: 3 });
export const MetadataValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export const Metadata = Type.Record(Type.String(), MetadataValue);
export const PolygonGeometry = Obj({ type: Type.Literal('Polygon'), coordinates: Type.Array(Type.Array(Position, { minItems: 4 }), { minItems: 1 }) });
export const BBox = Type.Tuple([Lon, Lat, Lon, Lat], { description: 'minLon, minLat, maxLon, maxLat' });

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Where an item stands with the service, as the map colours it. */
export const SyncState = Type.Union([
  Type.Literal('synced'), Type.Literal('pending'), Type.Literal('sending'), Type.Literal('uncertain'),
  Type.Literal('rejected'), Type.Literal('conflict'), Type.Literal('blocked'),
]);
export type SyncState = Static<typeof SyncState>;

