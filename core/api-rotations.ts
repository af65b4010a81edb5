// The app's backend contract, crop rotations (farm managers): a parcel's rotation timeline, a farm's parcels ×
// campaigns, crop CRUD through the outbox. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { Account, Id, Nothing, Nullable, Obj, One, SyncState } from './api-schemas.ts';

/** A crop's family: id null for one named on a crop here and not yet synced (the service creates it then). */
const FamilyRef = Obj({ id: Nullable(Type.Integer()), name: Type.String() });
export const CropFamilySummary = Obj({ id: Type.Integer(), name: Type.String(), observation: Type.String() });
/** The crop's family follows itself on the parcel (core/crops/rotation.ts says when). */
export const RotationWarning = Obj({
  code: Type.Literal('family_repeats'),
  /** The earlier crop of the same family it follows. */
  after: Id,
  family: Type.String(),
  /** Seen by consecutive campaigns, or by sowing → closure periods (a campaign missing). */
  by: Type.Union([Type.Literal('campaign'), Type.Literal('dates')]),
  message: Type.String(),
});
export const RotationCrop = Obj({
  id: Id, parcel: Id, serverId: Nullable(Type.Integer()),
  campaign: Nullable(Type.String()), name: Nullable(Type.String()), variety: Nullable(Type.String()), family: Nullable(FamilyRef),
  /** YYYY-MM-DD. */
  sowing: Nullable(Type.String()), closure: Nullable(Type.String()),
  harvestedQty: Nullable(Type.Number()), area: Nullable(Type.Number()),
  /** Active (on the ground), or past. */
  active: Type.Boolean(),
  state: SyncState, reason: Nullable(Type.String()),
  warnings: Type.Array(RotationWarning),
});
export type RotationCrop = Static<typeof RotationCrop>;
export const FarmRotation = Obj({
  farm: Id,
  /** The current campaign's year (core/crops/campaign-summary.ts): crops of a later campaign are the plan. */
  current: Type.Integer(),
  /** Oldest first (by the year in the label); null: crops without a campaign, last. */
  campaigns: Type.Array(Nullable(Type.String())),
  /** Every parcel of the farm by name, with one cell per campaign, in the order of `campaigns`. */
  parcels: Type.Array(Obj({
    parcel: Id, name: Type.String(), hectares: Type.Number(),
    cells: Type.Array(Obj({ campaign: Nullable(Type.String()), crops: Type.Array(RotationCrop), familyRepeats: Type.Boolean() })),
  })),
});
export type FarmRotation = Static<typeof FarmRotation>;
/** The fields of a crop, checked by core/crops/validate.ts (invalid_crop with every problem); null clears one. */
const CropFields = {
  name: Type.Optional(Nullable(Type.String())), campaign: Type.Optional(Nullable(Type.String())), variety: Type.Optional(Nullable(Type.String())),
  /** An existing family by id, or by name (found ignoring case, else created by the service at the sync). */
  family: Type.Optional(Nullable(Type.Union([Obj({ id: Type.Integer({ minimum: 1 }) }), Obj({ name: Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' }) })]))),
  sowing: Type.Optional(Nullable(Type.String())), closure: Type.Optional(Nullable(Type.String())),
  harvestedQty: Type.Optional(Nullable(Type.Number())), area: Type.Optional(Nullable(Type.Number())), active: Type.Optional(Type.Boolean()),
};
export const ROTATIONS_API = {
  rotation: { callers: PAGE_AND_CLI, description: "A parcel's crops, newest first, each with its family, sync state and rotation warnings", args: Obj({ parcel: Id }), result: Type.Array(RotationCrop) },
  farmRotation: {
    callers: PAGE_AND_CLI, description: "A farm's parcels × campaigns (or one campaign), each cell flagged when a crop family follows itself on the parcel",
    args: Obj({ farm: Id, campaign: Type.Optional(Type.String({ maxLength: 120 })) }), result: FarmRotation,
  },
  cropFamilies: { callers: PAGE_AND_CLI, description: 'The crop families the service offered the account at its last pull, by name', args: Account, result: Type.Array(CropFamilySummary) },
  cropColourNames: {
    callers: PAGE_AND_CLI, description: "The names the account's map is coloured among (core/crops/family-colours.ts cropColours): its crop families and its active crops' names",
    args: Account, result: Obj({ families: Type.Array(Type.String()), crops: Type.Array(Type.String()) }),
  },
  createCrop: { callers: PAGE_AND_CLI, description: 'A new crop on a parcel (sent once the parcel is on the service)', args: Obj({ parcel: Id, ...CropFields }), result: RotationCrop },
  updateCrop: { callers: PAGE_AND_CLI, description: 'Changes the fields given of a crop', args: Obj({ id: Id, ...CropFields }), result: RotationCrop },
  deleteCrop: { callers: PAGE_AND_CLI, description: 'Deletes a crop (on the service at the next sync)', args: One, result: Nothing },
} satisfies Contract;
