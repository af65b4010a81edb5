import { Type, type TSchema, type Static } from '@sinclair/typebox';


/**
 * A nullable field. TypeBox, Ajv and fast-json-stringify all understand a union with null; OpenAPI 3.0.3 has no
 * `type: 'null'`, so the document generator rewrites these unions to `nullable: true` (service/openapi.ts).
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IntegerId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
export const IdParams = Type.Object({ id: IntegerId }, { additionalProperties: false });
export type IdParams = Static<typeof IdParams>;

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
export const DateOnly = Type.String({ format: 'date' });

export const Position = Type.Array(Type.Number(), { minItems: 2, maxItems: 3, description: '[longitude, latitude] or [longitude, latitude, z] in WGS84' });
export const Ring = Type.Array(Position, { minItems: 4 });
export const PolygonGeometry = Type.Object({
  type: Type.Literal('Polygon'),
  coordinates: Type.Array(Ring, { minItems: 1 }),
});
export const PointGeometry = Type.Object({
  type: Type.Literal('Point'),
  coordinates: Position,
});
export const BBox = Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: 'minLon, minLat, maxLon, maxLat' });

export const MetadataValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
export const Metadata = Type.Record(Type.String(), MetadataValue, {
  description: 'Custom key-value pairs. Keys may contain spaces. Values are strings, numbers or booleans.',
});

export const ErrorDetail = Type.Object({
  index: Type.Optional(Type.Integer()),
  path: Type.String(),
  code: Type.String(),
  message: Type.String(),
});
export const ErrorBody = Type.Object({
  code: Type.String({ description: 'Stable machine-readable code, e.g. invalid_token, account_not_found, invalid_parcels' }),
  message: Type.String(),
  detail: Type.String({ description: 'Same as message (compatibility with the hosted original)' }),
  errors: Type.Optional(Type.Array(ErrorDetail)),
}, { $id: 'ErrorBody' });

export const MessageBody = Type.Object({ message: Type.String() }, { description: "Not a success: nothing was processed (e.g. 'Missing Farm ID')" });
