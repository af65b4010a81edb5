// The app's backend contract, conflicts: a parcel's open conflict with both sides, and settling one (a side whole, or
// field by field). Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { Nullable, Obj, One } from './api-schemas.ts';

/** One field that differs between the two sides of a parcel's conflict, as text to show ("—" sides are null: absent). */
export const ConflictDifference = Obj({
  field: Type.String({ description: "'name', 'metadata.<key>' or 'geometry'" }),
  mine: Nullable(Type.String()),
  theirs: Nullable(Type.String()),
  /** Edited differently on both sides since the last sync (the reason of the conflict); other differences are one side's edit. */
  overlaps: Type.Boolean(),
});
/** A parcel's open conflict with both sides, for the panel's keep mine / keep theirs. */
export const ParcelConflict = Obj({
  id: Type.Integer(),
  kind: Type.String({ description: "'edit', 'remote_delete', 'duplicate_on_service' or 'partial_batch'" }),
  reason: Type.String(),
  /** The service no longer has the parcel (a remote_delete): keep theirs discards it here. */
  deletedOnService: Type.Boolean(),
  differences: Type.Array(ConflictDifference),
});
export type ParcelConflict = Static<typeof ParcelConflict>;

const Side = Type.Union([Type.Literal('mine'), Type.Literal('theirs')]);

export const CONFLICTS_API = {
  parcelConflict: { callers: PAGE_AND_CLI, description: "A parcel's open conflict with what differs between its two sides, or null", args: One, result: Nullable(ParcelConflict) },
  resolve: {
    callers: PAGE_AND_CLI, description: "Settles a conflict: one side whole, or an edit conflict field by field (`fields`: a parcel's 'name', 'geometry', 'metadata.<key>'; a crop's columns), `keep` for the fields not named",
    args: Obj({
      conflict: Type.Integer({ minimum: 1 }), keep: Side,
      fields: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 1200 }), Side, { maxProperties: 2000 })),
    }),
    result: Obj({
      effect: Type.Union([Type.String(), Type.Null()]),
      /** Duplicates the choice removed from the service, with the answer to each DELETE. */
      deletedOnService: Type.Array(Obj({ entity: Type.String(), id: Type.Integer(), status: Type.Integer() })),
    }),
  },
} satisfies Contract;
