// The app's backend contract, farms: an account's farms with their parcels and hectares, the box around one, a new
// one. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { Account, AccountId, BBox, Id, Name, Nullable, Obj, SyncState } from './api-schemas.ts';

export const FarmSummary = Obj({
  id: Id, account: AccountId, serverId: Type.Union([Type.Integer(), Type.Null()]), name: Type.String(),
  parcels: Type.Integer(), hectares: Type.Number(), state: SyncState,
});
export type FarmSummary = Static<typeof FarmSummary>;

export const FARMS_API = {
  farms: { callers: PAGE_AND_CLI, description: "An account's farms", args: Account, result: Type.Array(FarmSummary) },
  farmExtent: {
    callers: PAGE_AND_CLI, description: "The box around a farm's live parcels (null when it has none): what the map fits to, without reading the parcels",
    args: Obj({ farm: Id }), result: Nullable(BBox),
  },
  createFarm: { callers: PAGE_AND_CLI, description: 'A new farm in an account', args: Obj({ account: AccountId, name: Name }), result: FarmSummary },
} satisfies Contract;
