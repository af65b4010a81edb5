// The service's data, behind one asynchronous interface: routes, authentication, the admin panel, the embedded map,
// the demo and the CLI see only this, never SQL. Each method is atomic on its own (a transaction, where one is
// needed, lives inside it: 50 parcels are created all or none inside parcels.createBatch) and fails with the typed
// errors of ../errors.ts (404 not_found, 403 account_not_found, 409 email_taken…), as a rejected promise.
//
// Implementations: sqlite/ (better-sqlite3, the one built today; open.ts chooses). What is not SQL, e.g. JWTs,
// password hashing, request checks, JSON shaping, is shared in this folder on top of a Store, so every
// implementation gives the same answers.
import type { Billing } from '../../core/schemas/billing.ts';
import type { Crop, CropCreateRequest, CropFamily, CropPatchRequest } from '../../core/schemas/crops.ts';
import type { Farm } from '../../core/schemas/farms.ts';
import type { PreparedPatch } from '../validation-pool.ts';
import type { AccountRow } from './accounts.ts';
import type { ChangeRead } from './rows.ts';
import type { CropQuery, CurrentCrop } from './crops.ts';
import type { FarmListingPage, FarmParcelListing } from './farm-listing.ts';
import type { ActiveApiKey, ApiKeyInfo, Organization } from './organizations.ts';
import type { ParcelRow } from './parcel-json.ts';
import type { ParcelFilter, ParcelPage } from './parcel-list.ts';
import type { Scope } from './scope.ts';
import type { AdminCredentials, AdminInfo, AdminSession, Flash, NewSession, NewParcel, OrphanFarm, PlantQuery, PlantRow, SigningKey, SigningKeyInfo, VisibleFarm } from './rows.ts';
import type { ServedUrls } from './served-urls.ts';

export interface Store {
  readonly organizations: OrganizationStore;
  readonly apiKeys: ApiKeyStore;
  readonly accounts: AccountStore;
  readonly signingKeys: SigningKeyStore;
  readonly admins: AdminStore;
  readonly farms: FarmStore;
  readonly parcels: ParcelStore;
  readonly crops: CropStore;
  readonly cropFamilies: CropFamilyStore;
  readonly plants: PlantStore;
  readonly billing: BillingStore;
  readonly servedUrls: ServedUrlStore;
  readonly changes: ChangeStore;
  /** Closes the store (connections, background work); nothing may be called after. */
  close(): Promise<void>;
}

export interface OrganizationStore {
  /** A new organization with its first API key ('initial'), shown only here. */
  create(name: string): Promise<{ organization_id: string; api_key: string }>;
  get(id: string): Promise<Organization | undefined>;
  /** The oldest organization of this exact name (the demo finds its own by name). */
  findByName(name: string): Promise<{ id: string; name: string } | undefined>;
}

export interface ApiKeyStore {
  /** A new key, shown only here (the store keeps its hash); 404 for an unknown organization. */
  create(organizationId: string, label?: string): Promise<{ api_key: string; prefix: string }>;
  list(organizationId: string): Promise<ApiKeyInfo[]>;
  /** 404 when the organization has no active key with this prefix. */
  revoke(organizationId: string, prefix: string): Promise<void>;
  /** The key behind a presented secret, or undefined for an unknown or revoked one. */
  findActive(apiKey: string): Promise<ActiveApiKey | undefined>;
  /** Whether the key with this row id (an account token's `key` claim) is the organization's and not revoked. */
  isActive(id: number, organizationId: string): Promise<boolean>;
}

export interface AccountStore {
  get(id: string): Promise<AccountRow | undefined>;
  /** An account of the organization in any state; 403 account_not_found otherwise (another organization's too). */
  getInOrganization(organizationId: string, id: string): Promise<AccountRow>;
  /** As getInOrganization, and active. */
  getActive(organizationId: string, id: string): Promise<AccountRow>;
  /** The active account whose embedded map this auth_id opens. */
  byAuthId(authId: string): Promise<AccountRow | undefined>;
  /** 400 for an invalid e-mail, 409 email_taken when the organization has it (any state). */
  create(organizationId: string, email: string): Promise<AccountRow>;
  /** Oldest first. */
  list(organizationId: string): Promise<AccountRow[]>;
  /** Soft delete of an active account: its data stays, every token it has is refused (a new epoch). */
  deactivate(organizationId: string, id: string): Promise<AccountRow>;
  /** 409 unless deactivated; its old tokens stay refused. */
  reactivate(organizationId: string, id: string): Promise<AccountRow>;
  /** Refuses every token issued to the account so far. */
  revokeTokens(organizationId: string, id: string): Promise<AccountRow>;
  /** Deletes a deactivated account (409 otherwise) and its farms; crops and plants on orphan farms stay with them. */
  purge(organizationId: string, id: string): Promise<{ farms: number; parcels: number }>;
  /** The largest parcel it may have, in hectares; null restores the default. */
  setParcelLimit(id: string, hectares: number | null): Promise<AccountRow>;
  /** A new auth_id: every embedded_url handed out before stops working. */
  rotateAuthId(organizationId: string, id: string): Promise<AccountRow>;
  /** The account's parcel limit in hectares (0 for an unknown account: nothing fits). */
  parcelLimit(id: string): Promise<number>;
}

/** The per-organization secrets that sign account tokens (the tokens themselves: tokens.ts). */
export interface SigningKeyStore {
  /** The key that signs the organization's new tokens, created on first use. */
  current(organizationId: string): Promise<SigningKey>;
  /** The key a token names by its kid, retired or not; undefined once deleted. */
  get(kid: string): Promise<SigningKey | undefined>;
  /** Newest first. */
  list(organizationId: string): Promise<SigningKeyInfo[]>;
  /** A new current key; the previous ones retire (or, with revoke, are deleted with every token they signed). */
  rotate(organizationId: string, opts?: { revoke?: boolean }): Promise<{ kid: string; revoked_keys: number }>;
}

/** The admin panel's admins, sessions and failed sign-ins. Password checks and the sign-in sequence: admins.ts. */
export interface AdminStore {
  /** An admin whose password admins.ts has hashed; 409 email_taken when the organization has the email. */
  create(organizationId: string, email: string, passwordHash: string): Promise<AdminInfo>;
  list(organizationId: string): Promise<AdminInfo[]>;
  /** Deletes the admin and every session they have open; 404 when unknown. */
  delete(organizationId: string, email: string): Promise<void>;
  /** The admins a (normalized) email may sign in as, oldest first, at most 10; in one organization when given. */
  forSignIn(email: string, organizationId?: string): Promise<AdminCredentials[]>;
  /**
   * The sign-in rate limit's check and, when it lets the attempt through, its record as a failure, in one atomic
   * step: parallel guesses are each counted before any password is hashed.
   */
  recordSignInAttempt(email: string, ip: string, at: Date): Promise<{ attemptId: number } | { retryAfterSeconds: number }>;
  /** Takes the attempt back, forgets the email and address's failures, and drops old failures and dead sessions. */
  signInSucceeded(attemptId: number, email: string, ip: string, at: Date): Promise<void>;
  createSession(adminId: number, at: Date): Promise<NewSession>;
  /** The session behind a cookie's token; an idle or expired one is deleted and undefined. */
  session(token: string, at?: Date): Promise<AdminSession | undefined>;
  deleteSession(token: string): Promise<void>;
  setFlash(session: Pick<AdminSession, 'idHash'>, flash: Flash | null): Promise<void>;
}

export interface FarmStore {
  /** A farm of the scope's active account (400 account_required without one) with its validated parcels, atomically. */
  create(scope: Scope, name: string, parcels: readonly NewParcel[]): Promise<{ farm: Farm; rows: ParcelRow[] }>;
  list(scope: Scope): Promise<Farm[]>;
  /** 404 when the scope does not see it. */
  get(scope: Scope, id: number): Promise<Farm>;
  /** Its account and organization, for the parcel writes; 404 when the scope does not see it. */
  visible(scope: Scope, id: number): Promise<VisibleFarm>;
  rename(scope: Scope, id: number, name: unknown): Promise<Farm>;
  /** With its parcels, crops and plants. */
  delete(scope: Scope, id: number): Promise<void>;
  /**
   * GET /api/farms/{id}/parcels/: its parcels from one snapshot, in chunks (farm-listing.ts makes the body). 404
   * before anything is listed when the scope does not see the farm. The caller must close() it.
   */
  openParcelListing(scope: Scope, id: number, page: FarmListingPage): Promise<FarmParcelListing>;
  /** Names of the organization's farms among `ids`. */
  names(organizationId: string, ids: readonly number[]): Promise<Map<number, string>>;
  /** The organization of a farm in any state (the CLI names farms by id alone). */
  organizationOf(id: number): Promise<string | undefined>;
  // Settings > Data Management (admin panel, CLI): organization-level, not reachable through /api.
  /** Detaches a linked farm from its account: it becomes an orphan, kept and billed. 404 unless linked. */
  unlink(organizationId: string, id: number): Promise<void>;
  listOrphans(organizationId: string): Promise<OrphanFarm[]>;
  /** Farms linked to an account (active or deactivated; one account when given), by account then id. */
  listLinked(organizationId: string, accountId?: string): Promise<Farm[]>;
  /** 404 unless an orphan of the organization. */
  deleteOrphan(organizationId: string, id: number): Promise<void>;
}

export interface ParcelStore {
  /**
   * Validated parcels into a farm the scope still sees (404 otherwise), all or none, in order. `midBatch` is told
   * after each row is written (the fault switch's mid-batch crash).
   */
  createBatch(scope: Scope, farmId: number, parcels: readonly NewParcel[], midBatch?: (inserted: number) => void): Promise<ParcelRow[]>;
  /** With its farm's account (whose limit applies); 404 when the scope does not see it. */
  get(scope: Scope, id: number): Promise<ParcelRow & { account_id: string }>;
  /** Applies a validated patch; 404 when the scope does not see the parcel (any more). */
  update(scope: Scope, id: number, patch: PreparedPatch): Promise<ParcelRow>;
  /** With its crops and plants; 404 when the scope does not see it. */
  delete(scope: Scope, id: number): Promise<void>;
  /** One page of the scope's parcels matching the filter, by id; 404 for a farm filter the scope does not see. */
  list(scope: Scope, filter: ParcelFilter): Promise<ParcelPage>;
}

export interface CropStore {
  get(scope: Scope, id: number): Promise<Crop>;
  /** count: every match; results: the page. */
  list(scope: Scope, q: CropQuery): Promise<{ count: number; results: Crop[] }>;
  /** A family given by name and unknown is added to the organization (API key only: 403 for a bearer token). */
  create(scope: Scope, body: CropCreateRequest): Promise<Crop>;
  patch(scope: Scope, id: number, body: CropPatchRequest): Promise<Crop>;
  delete(scope: Scope, id: number): Promise<void>;
  /** The parcel's whole rotation, newest sowing first (undated last); 404 when the scope does not see the parcel. */
  ofParcel(scope: Scope, parcelId: number): Promise<Crop[]>;
  /** The current crop of each visible parcel of the scope, by parcel id (the embedded map). */
  currentByParcel(scope: Scope): Promise<Map<number, CurrentCrop>>;
}

export interface CropFamilyStore {
  /** The shared families and the organization's own, by name. */
  list(organizationId: string): Promise<CropFamily[]>;
  /** 409 when a family of that name (any case) exists, shared or the organization's. */
  create(organizationId: string, name: string, observation?: string): Promise<CropFamily>;
}

export interface PlantStore {
  /** A page of the scope's plants by id; hasMore when more match. 404 for a parcel the scope does not see. */
  list(scope: Scope, q: PlantQuery): Promise<{ rows: PlantRow[]; hasMore: boolean }>;
  get(scope: Scope, id: number): Promise<PlantRow>;
  /**
   * A detection file (a FeatureCollection) for an account, all or nothing: a plant without a parcel goes into
   * `defaultParcel`, else the account's parcel that contains it.
   */
  import(organizationId: string, accountId: string, collection: unknown, defaultParcel?: number | null): Promise<{ imported: number }>;
}

export interface BillingStore {
  /** Billable hectares per account and orphan farms (billing.ts). */
  of(organizationId: string): Promise<Billing>;
}

/** The change feed's rows (changes.ts makes the answer). */
export interface ChangeStore {
  /**
   * For the scope's account (set): drops its tombstones recorded before `tombstonesBefore` (seconds since the epoch),
   * then reads from one snapshot its latest number, the number below which tombstones are gone, and (with `since`) at
   * most `limit` rows after `since` by number, when `since` lies between the two, with their parcels and plants; fewer
   * (`cut`) where their objects would pass `maxBytes` (CHANGES_PAGE_BYTES by default, at least one row).
   */
  read(scope: Scope, since: number | null, limit: number, tombstonesBefore: number, maxBytes?: number): Promise<ChangeRead>;
}

export interface ServedUrlStore {
  /** Called when the service starts listening. */
  record(urls: { publicUrl: string; embedUrl: string }): Promise<void>;
  /** What the service last served with, or null when none has listened on this store yet. */
  get(): Promise<ServedUrls | null>;
}
