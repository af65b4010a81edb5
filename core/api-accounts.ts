// The app's backend contract, account management (consultants syncing many customer accounts). Organization mode: the
// backend holds an organization's API key for a service (in its credential store, never sent to the renderer) and
// lists, creates and deactivates that organization's accounts there. Account mode: an account connected with its own
// bearer token, whose expiry is shown and which is renewed by pasting a new token or from a token provider address
// (core/accounts/token-provider.ts). Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { CLI_ONLY, PAGE_AND_CLI, type Contract, type EventContract } from './rpc.ts';
import { AccountId, BlockedAccount, Nullable, Obj, StatusCounts, ViewportFilter } from './api-schemas.ts';
import { MAX_EMAIL_LENGTH } from './accounts/email.ts';
import { MAX_TOKEN_URL_LENGTH } from './accounts/token-provider.ts';

/**
 * An organization the backend holds a key for: a digest of the service and the key names it (never the key). The
 * key came with an account connected by it, or alone (addOrganization).
 */
export const OrganizationId = Type.String({ pattern: '^org-[0-9a-f]{16}$' });

/** One of the organization's accounts on the service, connected on this computer or not. */
export const OrgAccount = Obj({
  id: AccountId,
  email: Type.String(),
  /** On the service: active, deactivated (data kept and billed, no API access), or unknown to it (`missing`). */
  state: Type.Union([Type.Literal('active'), Type.Literal('deactivated'), Type.Literal('missing')]),
  deactivated: Nullable(Type.String()),
  /** Connected on this computer (the `accounts` list has it). */
  connected: Type.Boolean(),
});
export type OrgAccount = Static<typeof OrgAccount>;

export const Organization = Obj({
  id: OrganizationId,
  service: Type.String(),
  /** How accounts connected through it authenticate: the key and the account header, or bearer tokens the key fetches. */
  method: Type.Union([Type.Literal('api_key'), Type.Literal('bearer')]),
  /** Its accounts as the service lists them, with the ones connected here it no longer knows; null when it could not be asked. */
  accounts: Nullable(Type.Array(OrgAccount)),
  /** Why the list is missing (the service unreachable, the key refused), for people. */
  problem: Nullable(Type.String()),
  /** Its name as the service gave it (GET /api/organization/: our service's extension), now or when last asked; null when never told. */
  name: Nullable(Type.String()),
  /** Its id on the service (not the app's `id`), to tell two of the same name apart; null when never told. */
  remoteId: Nullable(Type.String()),
  /**
   * The service at the address answered and does not know the key (its data was reset, or another service now answers
   * there): the accounts connected with it are stale, listed in `accounts` as `missing`, to export and remove.
   */
  stale: Type.Boolean(),
});
export type Organization = Static<typeof Organization>;

/** Where an account's bearer token comes from, and when the one held expires. */
export const TokenState = Obj({
  account: AccountId,
  /**
   * 'organization': fetched with the organization's key as needed (nothing to do); 'pasted': given by hand, renewed
   * only by pasting another; 'url': renewed from the token provider address; 'command': renewed by a command (CLI).
   */
  source: Type.Union([Type.Literal('organization'), Type.Literal('pasted'), Type.Literal('url'), Type.Literal('command')]),
  /** When the token held expires (ISO), or null when none is held or it carries no expiry. */
  expires: Nullable(Type.String()),
  expired: Type.Boolean(),
  /** The token provider's address as shown to people (its query hidden), when set. */
  provider: Nullable(Type.String()),
});
export type TokenState = Static<typeof TokenState>;

export const DeactivationFarm = Obj({ id: Type.Integer(), name: Type.String(), parcels: Type.Integer(), hectares: Type.Number() });

/** What deactivating an account would do, from the service's own listing of its farms. */
export const DeactivationPreview = Obj({
  organization: OrganizationId,
  account: AccountId,
  email: Type.String(),
  /** Its farms on the service: kept and billed after the deactivation, out of everyone's reach through the API. */
  farms: Type.Array(DeactivationFarm),
  parcels: Type.Integer(),
  hectares: Type.Number(),
  connectedHere: Type.Boolean(),
  /** Changes made here that the service does not have (and open conflicts): lost with the account, so asked for. */
  unsynced: Type.Integer(),
});
export type DeactivationPreview = Static<typeof DeactivationPreview>;

export const DeactivationResult = Obj({
  account: AccountId,
  /** Farms and parcels deleted on the service first (deleteFarms). */
  deleted: Obj({ farms: Type.Integer(), parcels: Type.Integer(), hectares: Type.Number() }),
  /** Left on the service with the deactivated account: still billed, unreachable through the API. */
  kept: Obj({ farms: Type.Integer(), parcels: Type.Integer(), hectares: Type.Number() }),
  /** The account and its data were removed from this computer (it was connected here). */
  removedHere: Type.Boolean(),
});
export type DeactivationResult = Static<typeof DeactivationResult>;

const Org = { organization: OrganizationId };
const Label = Type.Optional(Type.String({ maxLength: 200 }));

export const AccountSummary = Obj({
  id: AccountId,
  label: Type.String(),
  service: Type.String(),
  method: Type.Union([Type.Literal('api_key'), Type.Literal('bearer')]),
  /** Why syncing this account needs the user (its code and reason: the app words what to do), and how many changes wait (none lost). */
  blocked: Type.Union([BlockedAccount, Type.Null()]),
  lastPull: Type.Union([Type.String(), Type.Null()]),
  /** The agreed maximum parcel size in hectares (setParcelLimit): the map refuses a drawn parcel above it before saving. */
  parcelLimit: Type.Number(),
  counts: StatusCounts,
});
export type AccountSummary = Static<typeof AccountSummary>;

const ServiceAddress = Type.String({ minLength: 1, maxLength: 2000 });
const ConnectArgs = Obj({
  service: ServiceAddress,
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
  apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  account: Type.Optional(AccountId),
  accountHeader: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  bearer: Type.Optional(Type.Boolean()),
  label: Type.Optional(Type.String({ maxLength: 200 })),
});
const ConnectResult = Obj({ account: AccountSummary, tokenExpires: Type.Union([Type.String(), Type.Null()]) });

export const ACCOUNTS_API = {
  accounts: { callers: PAGE_AND_CLI, description: 'The connected accounts with their counts and what blocks them', args: Obj({}), result: Type.Array(AccountSummary) },
  connect: {
    callers: PAGE_AND_CLI,
    description: "Adds an account once the service accepts its credentials (an account_access token, or the organization's API key and the account); the secrets stay in the backend",
    args: ConnectArgs,
    result: ConnectResult,
  },
  connectWithCommand: {
    callers: CLI_ONLY,
    description: 'As connect with an account_access token, kept fresh by running a command of the user\'s (at once when the token is refused, and at later syncs): the command line only — a page never supplies a command (its token provider is an address, setTokenProvider)',
    args: Obj({
      service: ServiceAddress, token: Type.String({ minLength: 1, maxLength: 10_000 }), tokenCommand: Type.String({ minLength: 1, maxLength: 2000 }),
      label: Type.Optional(Type.String({ maxLength: 200 })),
    }),
    result: ConnectResult,
  },
  disconnect: {
    callers: PAGE_AND_CLI, description: "Removes an account and all its data from this computer (the service keeps it); refused with the counts while it has unsynced work, unless discardUnsynced",
    args: Obj({ account: AccountId, discardUnsynced: Type.Optional(Type.Boolean()) }),
    result: Obj({ farms: Type.Integer(), parcels: Type.Integer(), crops: Type.Integer(), plants: Type.Integer(), discarded: Type.Integer() }),
  },
  setParcelLimit: {
    callers: PAGE_AND_CLI, description: "The account's agreed maximum parcel size (null: the default, 100 ha); the hectares now in force",
    args: Obj({ account: AccountId, hectares: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })) }), result: Obj({ hectares: Type.Number() }),
  },
  embeddedMap: {
    callers: PAGE_AND_CLI, description: "The account's embedded map on the service, with the metadata filter given (the spec's metadata[<key>]=<value>): an address to open in the system browser",
    args: Obj({ account: AccountId, metadata: Type.Optional(ViewportFilter) }),
    result: Obj({ url: Type.String() }),
  },
  organizations: {
    callers: PAGE_AND_CLI, description: "The organizations whose API key the backend holds, each with its accounts on the service (connected here or not)",
    args: Obj({}), result: Type.Array(Organization),
  },
  addOrganization: {
    callers: PAGE_AND_CLI, description: "Keeps an organization's API key for a service once the service accepts it (listing its accounts), without connecting an account",
    args: Obj({
      service: Type.String({ minLength: 1, maxLength: 2000 }), apiKey: Type.String({ minLength: 1, maxLength: 500 }),
      accountHeader: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), bearer: Type.Optional(Type.Boolean()),
    }),
    result: Organization,
  },
  forgetOrganization: {
    callers: PAGE_AND_CLI, description: "Forgets a key added with addOrganization; accounts connected with it keep their own credentials",
    args: Obj(Org), result: Type.Null(),
  },
  createAccount: {
    callers: PAGE_AND_CLI, description: "Creates an account on the service with the organization's key (its e-mail is the only field) and connects it here",
    args: Obj({ ...Org, email: Type.String({ minLength: 1, maxLength: MAX_EMAIL_LENGTH + 20 }), label: Label }),
    result: Obj({ account: AccountId, email: Type.String() }),
  },
  connectOrgAccount: {
    callers: PAGE_AND_CLI, description: "Connects one of the organization's accounts here with the key the backend holds",
    args: Obj({ ...Org, account: AccountId, label: Label }), result: Obj({ account: AccountId }),
  },
  deactivation: {
    callers: PAGE_AND_CLI, description: "What deactivating an account would do: its farms, parcels and hectares that would stay on the service, billed and out of reach, and the work here it would lose",
    args: Obj({ ...Org, account: AccountId }), result: DeactivationPreview,
  },
  deactivateAccount: {
    callers: PAGE_AND_CLI, description: "Deactivates an account on the service (DELETE /api/accounts/{id}/), after deleting its farms when asked, and removes it from this computer; refused when the service's farms differ from `seen` (the preview the user confirmed) or with unsynced work unless discardUnsynced",
    args: Obj({
      ...Org, account: AccountId, deleteFarms: Type.Boolean(),
      /** The preview's counts the user confirmed. */
      seen: Obj({ farms: Type.Integer({ minimum: 0 }), parcels: Type.Integer({ minimum: 0 }) }),
      discardUnsynced: Type.Optional(Type.Boolean()),
    }),
    result: DeactivationResult,
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
  accountTokens: {
    callers: PAGE_AND_CLI, description: "Each bearer account's token: where it comes from and when it expires",
    args: Obj({}), result: Type.Array(TokenState),
  },
  setToken: {
    callers: PAGE_AND_CLI, description: "A new account_access token for an account connected with its own token (pasted): it must be this account's, unexpired, and accepted by the service when it can be reached",
    args: Obj({ account: AccountId, token: Type.String({ minLength: 1, maxLength: 10_000 }) }),
    result: Obj({ token: TokenState, checked: Type.Boolean() }),
  },
  setTokenProvider: {
    callers: PAGE_AND_CLI, description: "The token provider address of an account connected with its own token (null: none); tokens are then fetched from it when needed",
    args: Obj({ account: AccountId, url: Nullable(Type.String({ maxLength: MAX_TOKEN_URL_LENGTH + 100 })) }),
    result: TokenState,
  },
  renewToken: {
    callers: PAGE_AND_CLI, description: "Fetches a new token from the account's token provider now",
    args: Obj({ account: AccountId }), result: TokenState,
  },
} satisfies Contract;

export const ACCOUNTS_EVENTS = {
  accounts: { callers: PAGE_AND_CLI, payload: Obj({}), description: 'The connected accounts changed (one connected, removed, its credentials or state): read them again' },
} satisfies EventContract;
