import type { Db } from './open.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { DEFAULT_MAX_PARCEL_HECTARES } from '../core/parcels/validate.ts';

// Small facts kept in the mirror's `settings` table, read by the writer, the engine and the CLI alike.

const put = (db: Db, key: string, value: string) =>
  cachedStatement(db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);

const limitKey = (accountId: string) => `parcel_limit:${accountId}`;

const validLimit = (n: number): boolean => Number.isFinite(n) && n > 0;

/**
 * The account's agreed maximum parcel size (the service's default unless set locally). A stored value that is not
 * a positive number (a NaN written before it was refused) counts as unset: NaN would turn every limit check off.
 */
export function parcelLimit(db: Db, accountId: string): number {
  const r = cachedStatement(db, 'SELECT value FROM settings WHERE key = ?').get(limitKey(accountId)) as { value: string } | undefined;
  const n = r ? Number(r.value) : NaN;
  return validLimit(n) ? n : DEFAULT_MAX_PARCEL_HECTARES;
}

export function setParcelLimit(db: Db, accountId: string, hectares: number | null): void {
  if (hectares !== null && !validLimit(hectares)) throw new RangeError(`A parcel limit is a positive number of hectares, not ${hectares}`);
  if (hectares === null) cachedStatement(db, 'DELETE FROM settings WHERE key = ?').run(limitKey(accountId));
  else put(db, limitKey(accountId), String(hectares));
}

/** The setting naming the process that runs a sync on this mirror. */
export const SYNC_LOCK = 'sync_lock';

export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process id of a sync that holds the lock and is still alive, or null (none, or it was killed). */
export function liveSyncHolder(db: Db): number | null {
  const r = cachedStatement(db, 'SELECT value FROM settings WHERE key = ?').get(SYNC_LOCK) as { value: string } | undefined;
  const pid = r ? Number(r.value) : 0;
  return processAlive(pid) ? pid : null;
}

/** Names this process as the one syncing the mirror (the caller checks liveSyncHolder first, in the same transaction). */
export function takeSyncLock(db: Db, pid: number): void {
  put(db, SYNC_LOCK, String(pid));
}

/** Lets go of the lock, if this process still holds it. */
export function releaseSyncLock(db: Db, pid: number): void {
  cachedStatement(db, 'DELETE FROM settings WHERE key = ? AND value = ?').run(SYNC_LOCK, String(pid));
}

/** The setting holding the app's view choices (core/api-view.ts ViewSettings), as JSON. */
const VIEW = 'view';

/** The app's view choices as kept, JSON text; null when none were. The backend checks them before use. */
export function viewSettings(db: Db): string | null {
  const r = cachedStatement(db, 'SELECT value FROM settings WHERE key = ?').get(VIEW) as { value: string } | undefined;
  return r?.value ?? null;
}

export function setViewSettings(db: Db, json: string): void {
  put(db, VIEW, json);
}

/** The setting holding the map's layers (core/api-layers.ts MapLayers), as JSON. */
const LAYERS = 'layers';

/** The map's layers as kept, JSON text; null when none were. The backend checks them before use. */
export function mapLayers(db: Db): string | null {
  const r = cachedStatement(db, 'SELECT value FROM settings WHERE key = ?').get(LAYERS) as { value: string } | undefined;
  return r?.value ?? null;
}

export function setMapLayers(db: Db, json: string): void {
  put(db, LAYERS, json);
}

/** The setting holding a farm's rotation rule set (core/crops/rule-set.ts), as JSON: one row per farm. */
const rulesKey = (farmLocalId: string) => `rotation_rules:${farmLocalId}`;

/** The rule set chosen for a farm, JSON text; null when none was (the defaults then). The backend checks it before use. */
export function rotationRules(db: Db, farmLocalId: string): string | null {
  const r = cachedStatement(db, 'SELECT value FROM settings WHERE key = ?').get(rulesKey(farmLocalId)) as { value: string } | undefined;
  return r?.value ?? null;
}

/** Keeps a farm's rule set; null forgets it (back to the defaults). */
export function setRotationRules(db: Db, farmLocalId: string, json: string | null): void {
  if (json === null) cachedStatement(db, 'DELETE FROM settings WHERE key = ?').run(rulesKey(farmLocalId));
  else put(db, rulesKey(farmLocalId), json);
}

/** Forgets the rule sets of an account's farms (the account is being removed). */
export function dropAccountRotationRules(db: Db, accountId: string): void {
  cachedStatement(db, "DELETE FROM settings WHERE key IN (SELECT 'rotation_rules:' || local_id FROM farms WHERE account_id = ?)").run(accountId);
}
