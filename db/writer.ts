import { randomUUID } from 'node:crypto';
import type { Db } from './open.ts';
import type { AccountRow, CropRow, Entity, FarmRow, ParcelRow, Row } from './types.ts';
import { getRow, insertRow, updateRow } from './rows.ts';
import { enqueue, enqueueCreated, releaseBackoff, requeueRejected } from './outbox.ts';
import { removeAccount, type RemovedAccount } from './accounts.ts';
import { idAt, insertIndexEntries, insertNewParcels, timeOrderedIdBytes, type RowSource, type Utf8Text } from './bulk.ts';
import { mapLayers, parcelLimit, rotationRules, setMapLayers, setParcelLimit, setRotationRules, setViewSettings, viewSettings } from './settings.ts';
import { validateParcel, validateParcelPatch, PARCEL_RULES_VERSION, type Metadata, type ParcelProblem, type ValidParcel } from '../core/parcels/validate.ts';
import { geometryColumns, parcelColumnsOf, type ParcelColumns } from '../core/parcels/columns.ts';
import { validationStamp } from '../core/parcels/client-ref.ts';
import { validateCropFields, type CropFields, type CropProblem } from '../core/crops/validate.ts';
import { UndoHistory } from './undo.ts';

const now = () => new Date().toISOString();

export class EditError extends Error {
  constructor(message: string, readonly problems: readonly (ParcelProblem | CropProblem)[] = []) {
    super(message);
    this.name = 'EditError';
  }
}

/**
 * A parcel that validateParcel accepted (on a worker thread, say), serialized into its columns: the input of
 * createPreparedParcels, which does not validate again. Its text columns as strings or as their UTF-8.
 */
export interface PreparedParcel extends ParcelColumns<Utf8Text> {
  /** Its validation stamp (core validationStamp of its metadata). */
  checked: number | null;
}

export interface ParcelPatchInput { name?: string; metadata?: Record<string, unknown>; geom?: unknown }
export interface CropInput extends CropFields { family_id?: number | null; family_name?: string | null }
/** What bulkEditParcels does to each parcel: a metadata key set (value null: removed), a crop added. */
export interface BulkParcelEdit { metadata?: { key: string; value: string | number | boolean | null }; crop?: Pick<CropInput, 'name' | 'campaign' | 'family_id' | 'family_name'> }

/**
 * Every user edit of the mirror goes through here: it changes the rows, records the change in the
 * outbox for the sync engine and in the history for undo/redo — all in one transaction.
 */
export class MirrorWriter {
  private readonly history: UndoHistory;

  constructor(private readonly db: Db) {
    this.history = new UndoHistory(db, (entity, row, fields) => this.update(entity, row, fields));
  }

  // ---- accounts and settings ----

  /** Removes an account and all its data from this computer (db/accounts.ts removeAccount). */
  removeAccount(accountId: string, opts: { discardUnsynced?: boolean } = {}): RemovedAccount {
    return removeAccount(this.db, accountId, opts);
  }

  /** Queues an account's (or every account's) rejected items again; how many. */
  requeueRejected(accountId: string | null): number {
    return requeueRejected(this.db, accountId);
  }

  /** Releases work waiting on a backoff, to be sent at the next sync; how many. */
  releaseBackoff(accountId: string | null): number {
    return releaseBackoff(this.db, accountId);
  }

  /** Connected (again): a change cursor is kept only for the same service, another service's cursor means nothing there. */
  addAccount(a: { id: string; service_url: string; mode: 'api_key' | 'bearer'; label?: string }): AccountRow {
    const row: AccountRow = { id: a.id, service_url: a.service_url, mode: a.mode, label: a.label ?? '', blocked: null, blocked_code: null, last_pull: null, change_cursor: null, read_after: null, created: now() };
    this.db.prepare(`INSERT INTO accounts (id, service_url, mode, label, blocked, last_pull, created) VALUES (@id, @service_url, @mode, @label, NULL, NULL, @created)
      ON CONFLICT(id) DO UPDATE SET service_url = excluded.service_url, mode = excluded.mode, label = excluded.label, blocked = NULL, blocked_code = NULL,
        change_cursor = CASE WHEN accounts.service_url = excluded.service_url THEN accounts.change_cursor END,
        read_after = CASE WHEN accounts.service_url = excluded.service_url THEN accounts.read_after END`).run(row);
    return this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(a.id) as AccountRow;
  }

  setParcelLimit(accountId: string, hectares: number | null): void {
    setParcelLimit(this.db, accountId, hectares);
  }

  parcelLimit(accountId: string): number {
    return parcelLimit(this.db, accountId);
  }

  /** The app's view choices, JSON text (backend/view-settings.ts checks them), or null. */
  viewSettings(): string | null {
    return viewSettings(this.db);
  }

  setViewSettings(json: string): void {
    setViewSettings(this.db, json);
  }

  /** The map's layers, JSON text (backend/layers.ts checks them), or null. */
  mapLayers(): string | null {
    return mapLayers(this.db);
  }

  setMapLayers(json: string): void {
    setMapLayers(this.db, json);
  }

  /** A farm's rotation rule set, JSON text (backend/plan.ts checks it), or null. */
  rotationRules(farmLocalId: string): string | null {
    return rotationRules(this.db, farmLocalId);
  }

  setRotationRules(farmLocalId: string, json: string | null): void {
    setRotationRules(this.db, farmLocalId, json);
  }

  // ---- edits ----

  createFarm(accountId: string, name: string): FarmRow {
    const trimmed = name.trim();
    if (!trimmed) throw new EditError('A farm needs a name');
    return this.edit(`Create farm ${trimmed}`, () => {
      const t = now();
      const row: FarmRow = { local_id: randomUUID(), account_id: accountId, server_id: null, name: trimmed, base: null, deleted: 0, created: t, modified: t };
      this.insert('farm', row);
      return row;
    });
  }

  renameFarm(localId: string, name: string): void {
    const trimmed = name.trim();
    if (!trimmed) throw new EditError('A farm needs a name');
    this.edit(`Rename farm to ${trimmed}`, () => this.update('farm', this.live('farm', localId), { name: trimmed }));
  }

  /** The farm and its parcels and crops go; the service deletes the children with the farm. */
  deleteFarm(localId: string): void {
    this.edit('Delete farm', () => {
      const farm = this.live('farm', localId);
      const parcels = this.db.prepare('SELECT local_id FROM parcels WHERE farm_local_id = ? AND deleted = 0').all(localId) as { local_id: string }[];
      for (const p of parcels) this.removeParcelLocally(p.local_id);
      this.remove('farm', farm);
    });
  }

  /**
   * Validates each input with the service's own rules. Without skipInvalid any problem aborts the whole
   * call; with it the valid parcels are created and the problems returned.
   */
  createParcels(farmLocalId: string, inputs: readonly unknown[], opts: { skipInvalid?: boolean; label?: string } = {}): { created: ParcelRow[]; problems: ParcelProblem[] } {
    const farm = this.live('farm', farmLocalId);
    const maxHectares = this.parcelLimit(farm.account_id);
    const valid: ValidParcel[] = [];
    const problems: ParcelProblem[] = [];
    inputs.forEach((input, i) => {
      const r = validateParcel(input, i, { maxHectares });
      if (r.parcel && r.problems.length === 0) valid.push(r.parcel);
      else problems.push(...r.problems);
    });
    if (problems.length && !opts.skipInvalid) {
      throw new EditError(`${new Set(problems.map((p) => p.index)).size} of ${inputs.length} parcel(s) are invalid; nothing was created`, problems);
    }
    const created = this.edit(opts.label ?? `Create ${valid.length} parcel(s)`, () => valid.map((p) => {
      const t = now();
      const row: ParcelRow = {
        local_id: randomUUID(), account_id: farm.account_id, farm_local_id: farm.local_id, server_id: null, key: null,
        ...parcelColumnsOf(p), checked: validationStamp(p.metadata), base: null, deleted: 0, created: t, modified: t,
      };
      this.insert('parcel', row);
      return row;
    }));
    return { created, problems };
  }

  /**
   * Creates parcels that core/parcels/validate.ts has already accepted (the import validates on worker
   * threads): one edit, one queued create each, recorded in the history by id; their local ids are time-ordered
   * (see timeOrderedIds) so that they append to the indexes. With `indexes` the caller has
   * suspended the parcels_ai trigger (db/bulk.ts) and the R*Tree and FTS5 entries are written here instead.
   * `savepoint: false` (inside the caller's transaction) skips the savepoint that would let this edit fail
   * alone: when the caller rolls everything back on any failure it is pure cost, since each page a savepoint
   * modifies is first copied to its journal. Returns how many were created.
   */
  createPreparedParcels(farmLocalId: string, parcels: RowSource<PreparedParcel>, label: string, opts: { indexes?: boolean; savepoint?: boolean } = {}): number {
    if (parcels.length === 0) return 0;
    if (opts.savepoint === false && !this.db.inTransaction) throw new Error('createPreparedParcels without a savepoint needs an open transaction');
    const create = (): number => this.insertPrepared(this.live('farm', farmLocalId), parcels, opts.indexes === true);
    return opts.savepoint === false ? this.history.record(label, create) : this.edit(label, create);
  }

  /**
   * createPreparedParcels into a farm created by the same edit: an import's first chunk into a new farm. One undo
   * entry, so that undoing the import removes the farm it made too (and a farm never synced never reaches the
   * service); UndoHistory keeps it when something else has come to use it meanwhile.
   */
  createFarmWithPreparedParcels(accountId: string, farmName: string, parcels: RowSource<PreparedParcel>, label: string, opts: { indexes?: boolean; savepoint?: boolean } = {}): FarmRow {
    const trimmed = farmName.trim();
    if (!trimmed) throw new EditError('A farm needs a name');
    if (opts.savepoint === false && !this.db.inTransaction) throw new Error('createFarmWithPreparedParcels without a savepoint needs an open transaction');
    const create = (): FarmRow => {
      const t = now();
      const farm: FarmRow = { local_id: randomUUID(), account_id: accountId, server_id: null, name: trimmed, base: null, deleted: 0, created: t, modified: t };
      this.insert('farm', farm);
      this.insertPrepared(farm, parcels, opts.indexes === true);
      return farm;
    };
    return opts.savepoint === false ? this.history.record(label, create) : this.edit(label, create);
  }

  private insertPrepared(farm: FarmRow, parcels: RowSource<PreparedParcel>, indexes: boolean): number {
    if (parcels.length === 0) return 0;
    const t = now();
    const ids = timeOrderedIdBytes(parcels.length);
    const first = insertNewParcels(this.db, { parcels, ids, account_id: farm.account_id, farm_local_id: farm.local_id, created: t });
    const last = first + parcels.length - 1;
    enqueueCreated(this.db, 'parcel', first, last, t);
    // Last among the edit's statements: FTS5 keeps the terms it is given pending, and writes them out as a segment
    // when the next statement that may fail halfway begins (see db/bulk.ts): one segment per edit.
    if (indexes) insertIndexEntries(this.db, first, last);
    // The ids as strings only now, for the undo entry (recorded and gone at the end of this edit).
    this.history.created('parcel', Array.from({ length: parcels.length }, (_, i) => idAt(ids, i)));
    return parcels.length;
  }

  updateParcel(localId: string, patch: ParcelPatchInput): ParcelRow {
    const row = this.live('parcel', localId);
    const r = validateParcelPatch(patch, 0, { maxHectares: this.parcelLimit(row.account_id) });
    if (!r.patch || r.problems.length) throw new EditError(r.problems[0]?.message ?? 'Invalid change', r.problems);
    const fields: Partial<ParcelRow> = {};
    if (r.patch.name !== undefined) fields.name = r.patch.name;
    if (r.patch.metadata !== undefined) fields.metadata = JSON.stringify(r.patch.metadata);
    if (r.patch.geom) Object.assign(fields, geometryColumns(r.patch.geom));
    // Each part of a parcel is checked on its own, so a valid patch of a stamped row leaves it valid.
    fields.checked = row.checked === PARCEL_RULES_VERSION ? validationStamp(r.patch.metadata ?? (JSON.parse(row.metadata) as Metadata)) : null;
    this.edit('Edit parcel', () => this.update('parcel', row, fields));
    return getRow(this.db, 'parcel', localId)!;
  }

  /**
   * The attribute table's bulk edit (core/api-table.ts bulkEditParcels): a metadata key set (or removed, value null)
   * and/or a crop added, active, on every parcel given — checked first, every parcel against the service's rules (one
   * refused: nothing changes), then written as ONE edit, so one undo brings them all back. The ops queue like any
   * edit's and the engine sends them in its batches.
   */
  bulkEditParcels(localIds: readonly string[], edit: BulkParcelEdit): number {
    const rows = [...new Set(localIds)].map((id) => this.live('parcel', id));
    if (!rows.length) return 0;
    const account = rows[0]!.account_id;
    if (rows.some((r) => r.account_id !== account)) throw new EditError('A bulk edit changes the parcels of one account');
    const maxHectares = this.parcelLimit(account);
    const metadata = new Map<string, Metadata>();
    if (edit.metadata) {
      const { key, value } = edit.metadata;
      for (const [i, row] of rows.entries()) {
        const next = { ...(JSON.parse(row.metadata) as Metadata) };
        if (value === null) delete next[key];
        else next[key] = value;
        const r = validateParcelPatch({ metadata: next }, i, { maxHectares });
        if (!r.patch || r.problems.length) throw new EditError(`${row.name}: ${r.problems[0]?.message ?? 'invalid metadata'}; nothing was changed`, r.problems);
        metadata.set(row.local_id, r.patch.metadata!);
      }
    }
    const crop = edit.crop;
    if (crop) {
      const { family_id: _id, family_name: _name, ...fields } = crop;
      const problems = validateCropFields({ ...fields, is_active: true } as Record<string, unknown>);
      if (problems.length) throw new EditError(problems[0]!.message, problems);
    }
    const what = [edit.metadata ? (edit.metadata.value === null ? `remove ${edit.metadata.key}` : `set ${edit.metadata.key}`) : null, crop ? `add crop ${crop.name ?? ''}`.trim() : null].filter(Boolean).join(', ');
    this.edit(`Bulk edit of ${rows.length} parcel(s): ${what}`, () => {
      const t = now();
      for (const row of rows) {
        const meta = metadata.get(row.local_id);
        if (meta) this.update('parcel', row, { metadata: JSON.stringify(meta), checked: row.checked === PARCEL_RULES_VERSION ? validationStamp(meta) : null });
        if (crop) {
          this.insert('crop', {
            local_id: randomUUID(), account_id: account, parcel_local_id: row.local_id, server_id: null, key: null,
            family_id: crop.family_id ?? null, family_name: crop.family_name ?? null, name: crop.name ?? null, campaign: crop.campaign ?? null,
            area: null, variety: null, harvested_qty: null, sowing: null, closure: null, is_active: 1, base: null, deleted: 0, created: t, modified: t,
          } satisfies CropRow);
        }
      }
    });
    return rows.length;
  }

  deleteParcel(localId: string): void {
    this.edit('Delete parcel', () => this.removeParcelLocally(localId));
  }

  createCrop(accountId: string, parcelLocalId: string | null, input: CropInput): CropRow {
    if (parcelLocalId !== null) {
      const p = this.live('parcel', parcelLocalId);
      if (p.account_id !== accountId) throw new EditError('The parcel belongs to another account');
    }
    const { family_id, family_name, ...fields } = input;
    const problems = validateCropFields(fields as Record<string, unknown>);
    if (problems.length) throw new EditError(problems[0]!.message, problems);
    return this.edit(`Add crop ${input.name ?? ''}`.trim(), () => {
      const t = now();
      const row: CropRow = {
        local_id: randomUUID(), account_id: accountId, parcel_local_id: parcelLocalId, server_id: null, key: null,
        family_id: family_id ?? null, family_name: family_name ?? null, name: fields.name ?? null, campaign: fields.campaign ?? null,
        area: fields.area ?? null, variety: fields.variety ?? null, harvested_qty: fields.harvested_qty ?? null, sowing: fields.sowing ?? null,
        closure: fields.closure ?? null, is_active: fields.is_active === false ? 0 : 1, base: null, deleted: 0, created: t, modified: t,
      };
      this.insert('crop', row);
      return row;
    });
  }

  updateCrop(localId: string, input: CropInput): CropRow {
    const row = this.live('crop', localId);
    const { family_id, family_name, ...fields } = input;
    const problems = validateCropFields(fields as Record<string, unknown>, { sowing: row.sowing, closure: row.closure });
    if (problems.length) throw new EditError(problems[0]!.message, problems);
    const out: Partial<CropRow> = { ...(fields as Partial<CropRow>) };
    if (fields.is_active !== undefined) out.is_active = fields.is_active ? 1 : 0;
    if (family_id !== undefined) out.family_id = family_id;
    if (family_name !== undefined) out.family_name = family_name;
    this.edit('Edit crop', () => this.update('crop', row, out));
    return getRow(this.db, 'crop', localId)!;
  }

  deleteCrop(localId: string): void {
    this.edit('Delete crop', () => this.remove('crop', this.live('crop', localId)));
  }

  // ---- undo / redo (persisted: they survive a restart) ----

  /** Undoes the last edit still done: of one account, or of any. Its label, or null when there is none. */
  undo(accountId?: string): string | null {
    return this.history.undo(accountId);
  }

  /** Redoes the last edit undone of one account, or of any. Its label, or null when there is none. */
  redo(accountId?: string): string | null {
    return this.history.redo(accountId);
  }

  // ---- internals ----

  /** One edit, recorded as one undo entry: a transaction of its own, or a savepoint in the caller's. */
  private edit<T>(label: string, fn: () => T): T {
    return this.history.edit(label, fn);
  }

  private live(entity: 'farm', localId: string): FarmRow;
  private live(entity: 'parcel', localId: string): ParcelRow;
  private live(entity: 'crop', localId: string): CropRow;
  private live(entity: Entity, localId: string): Row {
    const row = getRow(this.db, entity, localId);
    if (!row || row.deleted) throw new EditError(`No such ${entity}: ${localId}`);
    return row;
  }

  private insert(entity: Entity, row: Row): void {
    this.history.touch(entity, row.local_id, true);
    insertRow(this.db, entity, row);
    enqueue(this.db, row.account_id, entity, row.local_id, 'create');
  }

  private update(entity: Entity, row: Row, fields: Partial<Record<string, unknown>>): void {
    const changed = Object.keys(fields).filter((k) => (row as unknown as Record<string, unknown>)[k] !== fields[k]);
    if (!changed.length) return;
    this.history.touch(entity, row.local_id);
    updateRow(this.db, entity, row.local_id, { ...fields, modified: now() });
    enqueue(this.db, row.account_id, entity, row.local_id, 'update');
  }

  private remove(entity: Entity, row: Row): void {
    this.history.touch(entity, row.local_id);
    enqueue(this.db, row.account_id, entity, row.local_id, 'delete');
  }

  private removeParcelLocally(localId: string): void {
    const crops = this.db.prepare('SELECT local_id FROM crops WHERE parcel_local_id = ? AND deleted = 0').all(localId) as { local_id: string }[];
    for (const c of crops) {
      // The service deletes a parcel's crops with it: locally they just disappear, with no op of their own.
      this.history.touch('crop', c.local_id);
      this.db.prepare("DELETE FROM outbox WHERE entity = 'crop' AND local_id = ? AND state IN ('queued', 'rejected', 'blocked')").run(c.local_id);
      updateRow(this.db, 'crop', c.local_id, { deleted: 1, modified: now() });
    }
    this.remove('parcel', this.live('parcel', localId));
  }
}
