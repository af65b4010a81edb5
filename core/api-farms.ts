// The app's backend contract, farms: an account's farms with their parcels and hectares, the box around one, a page
// of its parcels for the list, a new one. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { Account, AccountId, BBox, Id, Name, Nullable, Obj, SyncState } from './api-schemas.ts';
import { MAX_OFFSET } from './schemas/common.ts';

export const FarmSummary = Obj({
  id: Id, account: AccountId, serverId: Type.Union([Type.Integer(), Type.Null()]), name: Type.String(),
  parcels: Type.Integer(), hectares: Type.Number(), state: SyncState,
});
export type FarmSummary = Static<typeof FarmSummary>;

/** A parcel as the side panel's list shows it: no geometry, so a page of a farm of thousands stays small. */
export const ParcelListItem = Obj({ id: Id, name: Type.String(), hectares: Type.Number(), state: SyncState });
export type ParcelListItem = Static<typeof ParcelListItem>;
export const ParcelPage = Obj({
  farm: Id,
  /** The farm's live parcels, and where this page starts among them (by name). */
  total: Type.Integer(), offset: Type.Integer(),
  parcels: Type.Array(ParcelListItem),
});
export type ParcelPage = Static<typeof ParcelPage>;

export const FARMS_API = {
  farms: { callers: PAGE_AND_CLI, description: "An account's farms", args: Account, result: Type.Array(FarmSummary) },
  farmExtent: {
    callers: PAGE_AND_CLI, description: "The box around a farm's live parcels (null when it has none): what the map fits to, without reading the parcels",
    args: Obj({ farm: Id }), result: Nullable(BBox),
  },
  farmParcels: {
    callers: PAGE_AND_CLI,
    description: "A page of a farm's live parcels by name, with hectares and sync state, for the list beside the map; `around` a parcel: the page holding it, in its farm",
    args: Type.Union([
      Obj({ farm: Id, offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }),
      Obj({ around: Id, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }),
    ]),
    result: ParcelPage,
  },
  createFarm: { callers: PAGE_AND_CLI, description: 'A new farm in an account', args: Obj({ account: AccountId, name: Name }), result: FarmSummary },
} satisfies Contract;
