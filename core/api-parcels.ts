// The app's backend contract, parcels: the map's parcels in view, one parcel, search, and the edits (a drawn polygon
// or a hectare point, its name, metadata and shape, deletion); the `changed` event after every write to the mirror.
// Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract, type EventContract } from './rpc.ts';
import { AccountId, BBox, Id, Lat, Lon, Metadata, Name, Nothing, Obj, One, PolygonGeometry, SyncState, ViewportFilter } from './api-schemas.ts';

export const ParcelProperties = Obj({
  farm: Id,
  name: Type.String(),
  hectares: Type.Number(),
  serverId: Type.Union([Type.Integer(), Type.Null()]),
  state: SyncState,
  /** The service's reason for a rejection, or what a conflict is about. */
  reason: Type.Union([Type.String(), Type.Null()]),
  /** A hectare point: the point and hectares it was dropped with (its geometry is the square the service makes). */
  point: Type.Union([Type.Tuple([Type.Number(), Type.Number()]), Type.Null()]),
  /** The active crop (the newest sowing) and its family, when the viewport was asked with `crops`. */
  crop: Type.Optional(Type.Union([Obj({ name: Type.Union([Type.String(), Type.Null()]), family: Type.Union([Type.String(), Type.Null()]) }), Type.Null()])),
  metadata: Metadata,
});
export const ParcelFeature = Obj({ type: Type.Literal('Feature'), id: Id, geometry: PolygonGeometry, properties: ParcelProperties });
export type ParcelFeature = Static<typeof ParcelFeature>;
export const ParcelCollection = Obj({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(ParcelFeature),
  /** More parcels meet the box than `limit`: zoom in (or ask with a larger limit). */
  truncated: Type.Boolean(),
});
export type ParcelCollection = Static<typeof ParcelCollection>;

/** A new parcel: a drawn polygon, or a point with the hectares of the square the service will make around it. */
export const NewParcel = Type.Union([
  Obj({ farm: Id, name: Name, metadata: Type.Optional(Metadata), geometry: PolygonGeometry }),
  Obj({ farm: Id, name: Name, metadata: Type.Optional(Metadata), point: Type.Tuple([Lon, Lat]), hectares: Type.Number({ exclusiveMinimum: 0 }) }),
]);

export const PARCELS_API = {
  viewport: {
    callers: PAGE_AND_CLI, description: "An account's parcels whose bounding box meets the box (R*Tree), for the map",
    args: Obj({
      account: AccountId, bbox: BBox, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50_000 })), metadata: Type.Optional(ViewportFilter),
      /** Each parcel with its active crop and family (properties.crop), for a map coloured by crop. */
      crops: Type.Optional(Type.Boolean()),
      /** With `crops`: each parcel's crop of this campaign (past or planned) instead of its active one. */
      campaign: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    }),
    result: ParcelCollection,
  },
  parcel: { callers: PAGE_AND_CLI, description: 'One parcel, by local id', args: One, result: ParcelFeature },
  search: {
    callers: PAGE_AND_CLI, description: "Parcels of an account whose name or metadata values match, as you type",
    args: Obj({ account: AccountId, text: Type.String({ maxLength: 200 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }),
    result: Type.Array(ParcelFeature),
  },
  createParcel: { callers: PAGE_AND_CLI, description: 'A drawn polygon or a hectare point, validated with the service\'s rules', args: NewParcel, result: ParcelFeature },
  updateParcel: {
    callers: PAGE_AND_CLI, description: 'Name, metadata (replaced whole) or geometry of a parcel',
    args: Obj({ id: Id, name: Type.Optional(Name), metadata: Type.Optional(Metadata), geometry: Type.Optional(PolygonGeometry) }),
    result: ParcelFeature,
  },
  deleteParcel: { callers: PAGE_AND_CLI, description: 'Deletes a parcel (on the service at the next sync)', args: One, result: Nothing },
} satisfies Contract;

/** What changed in the mirror, so a map updates without reloading. Ids are local ids. */
export const ChangeEvent = Obj({
  account: AccountId,
  farms: Type.Array(Id),
  /** Parcels written (created, edited, restored, their sync state moved) and removed. */
  parcels: Obj({ upserted: Type.Array(Id), removed: Type.Array(Id) }),
  /** Too many parcels changed to list (an import, a first pull): reload what is shown. */
  manyParcels: Type.Boolean(),
  crops: Type.Array(Id),
  plants: Type.Boolean(),
});
export type ChangeEvent = Static<typeof ChangeEvent>;

export const PARCELS_EVENTS = {
  changed: {
    callers: PAGE_AND_CLI, payload: ChangeEvent,
    description: 'What a write to the mirror changed in an account (an edit, undo, an import, a pull, the engine moving an op), so a map updates without reloading',
  },
} satisfies EventContract;
