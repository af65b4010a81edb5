// The app's backend contract, syncing: the counts and what needs the user, what the next sync sends, sending rejected
// work again, and the sync itself with its progress (also sent as the `sync` event, to every page). Part of API
// (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract, type EventContract } from './rpc.ts';
import { Account, AccountId, BlockedAccount, BlockedCode, Id, Nullable, Obj, StatusCounts } from './api-schemas.ts';
import { ConflictDifference } from './api-conflicts.ts';

export const Problem = Obj({
  kind: Type.String({ description: "'account_blocked', 'deletions_held' (id: the account), 'rejected', 'blocked' or 'conflict:<kind>'" }),
  id: Type.Union([Type.Integer(), Type.String()]),
  entity: Type.String(),
  name: Type.String(),
  reason: Type.String(),
});
export type Problem = Static<typeof Problem>;

const OpCounts = Obj({ create: Type.Integer(), update: Type.Integer(), delete: Type.Integer() });
/** What an account's next sync sends (queued work), and what it adds to the hectares the service bills. */
export const SyncPreview = Obj({
  ops: Obj({ farm: OpCounts, parcel: OpCounts, crop: OpCounts }),
  /** Created parcels, plus an edited shape's change, minus deleted parcels: the change to the billed total. */
  hectaresAdded: Type.Number(), hectaresCreated: Type.Number(), hectaresDeleted: Type.Number(),
  /** Work of unknown outcome, checked on the service before any of it is sent again. */
  uncertain: Type.Integer(),
});
/** Work that needs a look: uncertain (with what the engine found), rejected (the service's reason), or blocked. */
export const SyncItem = Obj({
  op: Type.Integer(), entity: Type.Union([Type.Literal('farm'), Type.Literal('parcel'), Type.Literal('crop')]),
  kind: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]), localId: Id, name: Nullable(Type.String()),
  state: Type.Union([Type.Literal('uncertain'), Type.Literal('in_flight'), Type.Literal('rejected'), Type.Literal('blocked')]),
  reason: Nullable(Type.String()), sentAt: Nullable(Type.String()), checks: Type.Integer(), nextAttemptAt: Nullable(Type.String()), batch: Nullable(Type.String()),
});
export type SyncItem = Static<typeof SyncItem>;
/** An open conflict as the sync cockpit lists it, with the local id of what it is about. */
export const SyncConflict = Obj({
  id: Type.Integer(), entity: Type.String(), localId: Id, name: Type.String(), kind: Type.String(), reason: Type.String(),
  /** An edit conflict's fields that differ (a parcel's, or a crop's columns), to settle side by side; none for other kinds. */
  differences: Type.Array(ConflictDifference),
});
export const SyncDetails = Obj({ preview: SyncPreview, items: Type.Array(SyncItem), conflicts: Type.Array(SyncConflict) });
export type SyncDetails = Static<typeof SyncDetails>;

export const SyncProgress = Obj({
  account: AccountId,
  phase: Type.String(),
  done: Type.Integer(),
  total: Type.Integer(),
  bytes: Type.Integer(),
  /** Answer bytes received so far, as they came over the wire (compressed). */
  bytesReceived: Type.Optional(Type.Integer()),
  message: Type.Optional(Type.String()),
  /** The service accepts connections and does not answer: a request got no answer within the client's timeout (why). */
  notAnswering: Type.Optional(Type.String()),
});
export type SyncProgress = Static<typeof SyncProgress>;

export const AccountSync = Obj({
  account: AccountId, service: Type.String(), synced: Type.Boolean(), cancelled: Type.Boolean(), error: Nullable(Type.String()),
  /** Why the account cannot go on without the user (its code says what to do), as on AccountSummary. */
  blocked: Nullable(Type.String()), blockedCode: Nullable(BlockedCode),
  /** The last request could not even connect: nothing of what is still queued reached the service. */
  unreachable: Nullable(Type.String()),
  /** The run's last request got no answer within the client's timeout: the service accepts connections and does not answer. */
  notAnswering: Type.Optional(Type.String()),
  sent: Type.Integer(), committed: Type.Integer(), rejected: Type.Integer(), conflicts: Type.Integer(),
  /** Parcels the pull listed; `received`: farms, parcels and crops it changed here (new or changed on the service). */
  pulled: Type.Integer(), received: Type.Integer(),
  /** Farms, parcels and crops removed here because the service deleted them (a farm's parcels counted with it). */
  removed: Type.Integer(),
  plantsChanged: Type.Integer(),
  /** Answer bytes received over the wire in the run (compressed as they came). */
  bytesReceived: Type.Optional(Type.Integer()),
  /** How the pull went: 'full' (every listing) or 'changes' (only what changed since the last pull, the service's change feed). */
  pullKind: Type.Optional(Nullable(Type.Union([Type.Literal('full'), Type.Literal('changes')]))),
  /** Why a pull listed everything when it could have read only the changes (its cursor expired…). */
  pullNote: Type.Optional(Nullable(Type.String())),
  /** Changes still queued or uncertain when the run ended (waiting for a retry or for settling), none lost. */
  left: Type.Integer(),
  /** Why they wait: the latest reason given (the service's refusal, "its disk is full…"); null when none was. */
  waitingWhy: Nullable(Type.String()),
  pullNotDone: Nullable(Type.String()),
  pullStopped: Nullable(Obj({ stage: Type.String(), farmsDone: Type.Integer(), farms: Type.Integer() })),
  /** Remote deletions held because they would remove too much at once (run again with acceptRemoteDeletions). */
  deletionsHeld: Type.Array(Type.String()),
});
export type AccountSync = Static<typeof AccountSync>;

export const SYNC_API = {
  status: {
    callers: PAGE_AND_CLI, description: 'Counts over one account or all, and every blocked account with its code, reason and waiting changes',
    args: Obj({ account: Type.Optional(AccountId) }), result: Obj({ counts: StatusCounts, blocked: Type.Array(BlockedAccount) }),
  },
  problems: { callers: PAGE_AND_CLI, description: 'Blocked accounts, rejected items and open conflicts, with their reasons', args: Obj({ account: Type.Optional(AccountId) }), result: Type.Array(Problem) },
  syncDetails: {
    callers: PAGE_AND_CLI, description: "The sync cockpit's view of an account: what the next sync sends, the work that needs a look and the open conflicts",
    args: Account, result: SyncDetails,
  },
  retry: { callers: PAGE_AND_CLI, description: 'Queues rejected items again and releases work waiting on a backoff', args: Obj({ account: Type.Optional(AccountId) }), result: Obj({ requeued: Type.Integer(), released: Type.Integer() }) },
  sync: {
    callers: PAGE_AND_CLI, description: 'Pushes local changes and pulls, account by account; cancellable (what is out is booked, the rest stays queued)',
    args: Obj({ account: Type.Optional(AccountId), push: Type.Optional(Type.Boolean()), pull: Type.Optional(Type.Boolean()), acceptRemoteDeletions: Type.Optional(Type.Boolean()) }),
    result: Type.Array(AccountSync),
    progress: SyncProgress,
  },
} satisfies Contract;

export const SYNC_EVENTS = {
  sync: { callers: PAGE_AND_CLI, payload: SyncProgress, description: "A sync's progress, whoever started it, at most ten a second" },
} satisfies EventContract;
