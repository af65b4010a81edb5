// The small schemas every part of the app's backend contract (core/api.ts and its sections) is built from.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BLOCKED_CODES } from './accounts/blocked.ts';
import { MAX_METADATA_FILTERS, MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUES, MAX_METADATA_FILTER_VALUE_LENGTH } from './schemas/common.ts';

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


/** Why the engine stopped for an account (core/accounts/blocked.ts): what to do about it is the shower's to say. */
export const BlockedCode = Type.Union(BLOCKED_CODES.map((c) => Type.Literal(c)));

/**
 * An account the sync engine cannot go on with without the user (sync/status.ts), as the app and the CLI get it:
 * the code (the app words its way out from it, renderer/blocked-words.ts; the CLI too, cli/way-out.ts), the reason
 * in words, and its changes waiting (kept, not lost) until it is unblocked.
 */
export const BlockedAccount = Obj({ account: AccountId, service: Type.String(), code: BlockedCode, reason: Type.String(), waiting: Type.Integer() });
export type BlockedAccount = Static<typeof BlockedAccount>;

/** The mirror's sync counts over one account or all (db/reader.ts `status`): outbox ops by state, and synced items. */
export const StatusCounts = Obj({
  pending: Type.Integer(), in_flight: Type.Integer(), uncertain: Type.Integer(), synced: Type.Integer(),
  rejected: Type.Integer(), conflicts: Type.Integer(), blocked: Type.Integer(),
});
export type StatusCounts = Static<typeof StatusCounts>;

/**
 * The embedded map's metadata filter (core/parcels/metadata-filter.ts): key → accepted values (any of a key's, all
 * keys), within the service's maxima for `metadata[<key>]=<value>`.
 */
export const ViewportFilter = Type.Record(
  // A Record's key is checked by its pattern only, in UTF-16 units: not empty, and room for the service's maximum
  // in characters (code points, up to two units each; the app's form counts characters).
  Type.RegExp(new RegExp(`^[\\s\\S]{1,${2 * MAX_METADATA_FILTER_KEY_LENGTH}}$`)),
  Type.Array(Type.String({ maxLength: 2 * MAX_METADATA_FILTER_VALUE_LENGTH }), { minItems: 1, maxItems: MAX_METADATA_FILTER_VALUES }),
  { maxProperties: MAX_METADATA_FILTERS, additionalProperties: false, description: 'Only parcels whose metadata matches, as on the embedded map' },
);

export const Account = Obj({ account: AccountId });
export const AnyAccount = Obj({ account: Type.Optional(AccountId) });
export const One = Obj({ id: Id });
export const Nothing = Type.Null();
