// The Store (../store.ts) over one better-sqlite3 connection. Every method runs its SQL synchronously inside the
// call, so each is atomic as it was when the routes called these functions directly: the promise only hands the
// answer (or the typed error) back. Bulk creates go through group commit (group-commit.ts).
import type { Db } from './db.ts';
import type { Store } from '../store.ts';
import { oneChunk } from '../parcel-list.ts';
import * as org from './organizations.ts';
import * as acc from './accounts.ts';
import * as keys from './tokens.ts';
import * as adm from './admins.ts';
import * as farm from './farms.ts';
import * as parcel from './parcels.ts';
import { listParcels } from './parcel-list.ts';
import { openFarmParcelListing } from './farm-listing.ts';
import * as crop from './crops.ts';
import * as plant from './plants.ts';
import { billing } from './billing.ts';
import { recordServedUrls, servedUrls } from './served-urls.ts';
import { readChanges } from './changes.ts';

/** The SQLite store, with its database for what is about SQLite itself (durability, migrations, benchmarks). */
export interface SqliteStore extends Store {
  readonly db: Db;
}

/** A Store over an open, migrated database; `close` ends whatever the store owns (by default, the database). */
export function sqliteStore(db: Db, close: () => Promise<void> = async () => { if (db.open) db.close(); }): SqliteStore {
  return {
    db,
    organizations: {
      create: async (name) => org.createOrganization(db, name),
      get: async (id) => org.getOrganization(db, id),
      findByName: async (name) => org.findOrganizationByName(db, name),
    },
    apiKeys: {
      create: async (organizationId, label) => org.createApiKey(db, organizationId, label),
      list: async (organizationId) => org.listApiKeys(db, organizationId),
      revoke: async (organizationId, prefix) => org.revokeApiKey(db, organizationId, prefix),
      findActive: async (apiKey) => org.activeApiKey(db, apiKey),
      isActive: async (id, organizationId) => org.apiKeyIsActive(db, id, organizationId),
    },
    accounts: {
      get: async (id) => acc.getAccountRow(db, id),
      getInOrganization: async (organizationId, id) => acc.getOrgAccount(db, organizationId, id),
      getActive: async (organizationId, id) => acc.activeAccount(db, organizationId, id),
      byAuthId: async (authId) => acc.accountByAuthId(db, authId),
      create: async (organizationId, email) => acc.createAccount(db, organizationId, email),
      list: async (organizationId) => acc.listAccounts(db, organizationId),
      deactivate: async (organizationId, id) => acc.deactivateAccount(db, organizationId, id),
      reactivate: async (organizationId, id) => acc.reactivateAccount(db, organizationId, id),
      revokeTokens: async (organizationId, id) => acc.revokeAccountTokens(db, organizationId, id),
      purge: async (organizationId, id) => acc.purgeAccount(db, organizationId, id),
      setParcelLimit: async (id, hectares) => acc.setParcelLimit(db, id, hectares),
      rotateAuthId: async (organizationId, id) => acc.rotateAuthId(db, organizationId, id),
      parcelLimit: async (id) => acc.limitFor(db, id),
    },
    signingKeys: {
      current: async (organizationId) => keys.currentSigningKey(db, organizationId),
      get: async (kid) => keys.signingKey(db, kid),
      list: async (organizationId) => keys.listSigningKeys(db, organizationId),
      rotate: async (organizationId, opts) => keys.rotateSigningKey(db, organizationId, opts),
    },
    admins: {
      create: async (organizationId, email, passwordHash) => adm.insertAdmin(db, organizationId, email, passwordHash),
      list: async (organizationId) => adm.listAdmins(db, organizationId),
      delete: async (organizationId, email) => adm.deleteAdmin(db, organizationId, email),
      forSignIn: async (email, organizationId) => adm.adminsForSignIn(db, email, organizationId),
      recordSignInAttempt: async (email, ip, at) => adm.recordSignInAttempt(db, email, ip, at),
      signInSucceeded: async (attemptId, email, ip, at) => adm.signInSucceeded(db, attemptId, email, ip, at),
      createSession: async (adminId, at) => adm.createSession(db, adminId, at),
      session: async (token, at) => adm.getSession(db, token, at),
      deleteSession: async (token) => adm.deleteSession(db, token),
      setFlash: async (session, flash) => adm.setFlash(db, session, flash),
    },
    farms: {
      create: async (scope, name, parcels) => farm.createFarm(db, scope, name, parcels),
      list: async (scope) => farm.listFarms(db, scope),
      get: async (scope, id) => farm.getFarm(db, scope, id),
      visible: async (scope, id) => parcel.visibleFarm(db, scope, id),
      rename: async (scope, id, name) => farm.renameFarm(db, scope, id, name),
      delete: async (scope, id) => farm.deleteFarm(db, scope, id),
      openParcelListing: async (scope, id, page) => openFarmParcelListing(db, scope, id, page),
      names: async (organizationId, ids) => farm.farmNames(db, organizationId, ids),
      organizationOf: async (id) => farm.farmOrganization(db, id),
      unlink: async (organizationId, id) => farm.unlinkFarm(db, organizationId, id),
      listOrphans: async (organizationId) => farm.listOrphans(db, organizationId),
      listLinked: async (organizationId, accountId) => farm.listLinkedFarms(db, organizationId, accountId),
      deleteOrphan: async (organizationId, id) => farm.deleteOrphan(db, organizationId, id),
    },
    parcels: {
      createBatch: (scope, farmId, parcels, midBatch) => parcel.createBatch(db, scope, farmId, parcels, midBatch),
      get: async (scope, id) => parcel.parcelRow(db, scope, id),
      update: async (scope, id, patch) => parcel.updateParcel(db, scope, id, patch),
      delete: async (scope, id) => parcel.deleteParcel(db, scope, id),
      list: async (scope, filter) => {
        // One chunk: a statement being iterated keeps the connection busy, so a page is read whole (it is bounded by its limit).
        const { rows, count, hasMore } = listParcels(db, scope, filter);
        return { count, hasMore, rows: oneChunk(rows) };
      },
    },
    crops: {
      get: async (scope, id) => crop.getCrop(db, scope, id),
      list: async (scope, q) => crop.listCrops(db, scope, q),
      create: async (scope, body) => crop.createCrop(db, scope, body),
      patch: async (scope, id, body) => crop.patchCrop(db, scope, id, body),
      delete: async (scope, id) => crop.deleteCrop(db, scope, id),
      ofParcel: async (scope, parcelId) => crop.parcelCrops(db, scope, parcelId),
      currentByParcel: async (scope) => crop.currentCrops(db, scope),
    },
    cropFamilies: {
      list: async (organizationId) => crop.listFamilies(db, organizationId),
      create: async (organizationId, name, observation) => db.transaction(() => crop.createFamily(db, organizationId, name, observation))(),
    },
    plants: {
      list: async (scope, q) => plant.listPlants(db, scope, q),
      get: async (scope, id) => plant.getPlant(db, scope, id),
      import: async (organizationId, accountId, collection, defaultParcel) => plant.importPlants(db, organizationId, accountId, collection, defaultParcel),
    },
    billing: {
      of: async (organizationId) => billing(db, organizationId),
    },
    servedUrls: {
      record: async (urls) => recordServedUrls(db, urls),
      get: async () => servedUrls(db),
    },
    changes: {
      read: async (scope, since, limit, tombstonesBefore, maxBytes) => readChanges(db, scope, since, limit, tombstonesBefore, maxBytes),
    },
    close,
  };
}
