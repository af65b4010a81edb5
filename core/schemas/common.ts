import { Type, type TSchema, type Static } from '@sinclair/typebox';


/**
 * A nullable field. TypeBox, Ajv and fast-json-stringify all understand a union with null; OpenAPI 3.0.3 has no
 * `type: 'null'`, so the document generator rewrites these unions to `nullable: true` (service/openapi.ts).
 */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IntegerId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

// ---- Query limits: the documented maxima of query parameters (docs/api.md, "Limits"). Each is checked before
// any SQL runs and answered 400 validation_failed, with errors[].code naming the bound (core/errors.ts).

/** OFFSET of the crops listing: SQLite skips rows one by one, and past this nobody is paging by hand. */
export const MAX_OFFSET = 10_000_000;
/** Distinct metadata keys filtered on at once (each is one subquery; ~950 hit SQLite's expression depth limit). */
export const MAX_METADATA_FILTERS = 20;
/** Values over every metadata filter of one request (metadata[k]=a&metadata[k]=b is two). */
export const MAX_METADATA_FILTER_VALUES = 100;
/** A filter's key and value may be as long as a stored metadata key and string value (core/parcels/limits.ts). */
export { MAX_METADATA_KEY_LENGTH as MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_STRING_LENGTH as MAX_METADATA_FILTER_VALUE_LENGTH } from '../parcels/limits.ts';
export const MAX_SEARCH_LENGTH = 200;

// The limit written out rather than by toLocaleString: called here, at module load, that brought ICU's locale data into
// every process loading the schemas (the CLI: 5 MB more resident memory before any command ran).
export const Offset = Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Rows to skip (at most 10,000,000)' });
/** Keyset cursor: ids are safe integers, so a larger one cannot name a row. */
export const Cursor = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Keyset cursor: only rows with an id greater than this' });
export const Search = Type.String({ maxLength: MAX_SEARCH_LENGTH });
export const IdParams = Type.Object({ id: IntegerId }, { additionalProperties: false });

/**
 * The query of an operation that takes no parameter: any is refused (400 validation_failed, errors[].code
 * unknown_field), as an unknown body field is. A parameter ignored in silence (a misspelt filter, say) would
 * answer as if the client had asked for everything.
 */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * A `metadata[<key>]=<value>` filter parameter: a non-empty key in brackets (any characters, newlines too).
 * `metadata[]` names no key and is refused like any unknown parameter, rather than dropped (matching everything).
 */
export const METADATA_FILTER_PARAM = '^metadata\\[([\\s\\S]+)\\]$';
/** The filter parameters of a query schema: text, or several texts when the key is repeated (either value). */
export const MetadataFilterParams = { [METADATA_FILTER_PARAM]: Type.Union([Type.String(), Type.Array(Type.String())]) };
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
