// The validation stamp (migration 002): the writer stamps the user fields it validated, and any later write of
// user fields that does not validate them again clears the stamp, so the sync engine never trusts stale content.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mirror } from './mirror.ts';
import { updateRow } from './rows.ts';
import { importFile } from './import/index.ts';
import { markInFlight } from './op-transitions.ts';
import { withoutFsync } from './open.ts';
import type { OutboxRow } from './types.ts';
import { MAX_METADATA_KEYS, PARCEL_RULES_VERSION } from '../core/parcels/validate.ts';
import { REF_KEY } from '../core/parcels/client-ref.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { closeTestMirror, openTestMirror } from '../test/helpers/test-mirror.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000002';
let dir: string;
let m: Mirror;

beforeEach(() => { ({ m, dir } = openTestMirror('furrow-checked-', [ACC])); });
afterEach(() => closeTestMirror({ m, dir }));

const checked = (localId: string) => m.read.parcel(localId)!.checked;

describe('the validation stamp', () => {
  it('created parcels carry the rules version they were validated under', () => {
    const farm = m.write.createFarm(ACC, 'Stamps');
    const { created } = m.write.createParcels(farm.local_id, parcelInputs(3, 'st'));
    expect(created.map((r) => checked(r.local_id))).toEqual([PARCEL_RULES_VERSION, PARCEL_RULES_VERSION, PARCEL_RULES_VERSION]);
  });

  it('a write of user fields that did not validate them (as pull and merge do) clears it; sync columns do not', () => {
    const farm = m.write.createFarm(ACC, 'Stamps');
    const [a, b] = m.write.createParcels(farm.local_id, parcelInputs(2, 'st')).created;
    updateRow(m.syncDb, 'parcel', a!.local_id, { server_id: 7, key: 'k', base: '{}' });
    expect(checked(a!.local_id)).toBe(PARCEL_RULES_VERSION);
    updateRow(m.syncDb, 'parcel', b!.local_id, { geometry: '{"type":"Polygon","coordinates":[]}' });
    expect(checked(b!.local_id)).toBeNull();
  });

  it('an edit through the writer keeps a stamped parcel stamped; an unstamped one stays unstamped', () => {
    const farm = m.write.createFarm(ACC, 'Stamps');
    const [a, b] = m.write.createParcels(farm.local_id, parcelInputs(2, 'st')).created;
    m.write.updateParcel(a!.local_id, { name: 'renamed', metadata: { crop: 'wheat' } });
    expect(checked(a!.local_id)).toBe(PARCEL_RULES_VERSION);
    updateRow(m.syncDb, 'parcel', b!.local_id, { name: 'pulled name' });
    m.write.updateParcel(b!.local_id, { name: 'edited again' });
    expect(checked(b!.local_id)).toBeNull();
  });

  it('metadata with no room left for the client reference is not stamped (the engine reports it)', () => {
    const farm = m.write.createFarm(ACC, 'Stamps');
    const full = Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS }, (_, i) => [`k${i}`, i]));
    const withRef = { ...Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS - 1 }, (_, i) => [`k${i}`, i])), [REF_KEY]: 'x' };
    const { created } = m.write.createParcels(farm.local_id, [polygonParcel('full', -4, 37, 100, full), polygonParcel('ref', -4.01, 37, 100, withRef)]);
    expect(created.map((r) => checked(r.local_id))).toEqual([null, PARCEL_RULES_VERSION]);
  });
});

describe('imports', () => {
  it('imported parcels are stamped like created ones; no room for the reference, no stamp', async () => {
    const full = Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS }, (_, i) => [`k${i}`, i]));
    const features = [...(parcelInputs(3, 'imp') as { name: string; metadata: object; geom: { geometry: unknown } }[]), polygonParcel('full', -4.2, 37.2, 100, full)]
      .map((p) => ({ type: 'Feature', properties: { name: p.name, ...p.metadata }, geometry: p.geom.geometry }));
    const file = join(dir, 'fields.geojson');
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
    const r = await importFile(m, file, { accountId: ACC, farmName: 'Imported' });
    expect(r.imported).toBe(4);
    const stamps = Object.fromEntries(m.read.parcels(r.farm.local_id).map((p) => [p.name, p.checked]));
    expect(stamps).toEqual({ 'imp-0': PARCEL_RULES_VERSION, 'imp-1': PARCEL_RULES_VERSION, 'imp-2': PARCEL_RULES_VERSION, full: null });
  });
});

describe('outbox marks for the engine', () => {
  it('markInFlight marks only ops that still exist: a parcel the user deleted before its send is not sent', () => {
    const farm = m.write.createFarm(ACC, 'Marks');
    const [a, b] = m.write.createParcels(farm.local_id, parcelInputs(2, 'mk')).created;
    const opId = (localId: string) => (m.syncDb.prepare("SELECT * FROM outbox WHERE local_id = ? AND op = 'create'").get(localId) as OutboxRow).id;
    const ids = [opId(a!.local_id), opId(b!.local_id)];
    m.write.deleteParcel(b!.local_id);
    expect([...markInFlight(m.syncDb, ids, 'batch-1')]).toEqual([ids[0]]);
    expect(m.syncDb.prepare('SELECT state, attempts, batch_id FROM outbox WHERE id = ?').get(ids[0])).toEqual({ state: 'in_flight', attempts: 1, batch_id: 'batch-1' });
  });

  it('withoutFsync commits at synchronous=NORMAL and restores FULL; inside a transaction it leaves the caller\'s durability alone', () => {
    const db = m.syncDb;
    const level = () => db.pragma('synchronous', { simple: true });
    let during: unknown;
    withoutFsync(db, () => { during = level(); db.prepare("INSERT INTO settings (key, value) VALUES ('a', '1')").run(); });
    expect([during, level()]).toEqual([1, 2]);
    db.transaction(() => {
      withoutFsync(db, () => { during = level(); db.prepare("INSERT INTO settings (key, value) VALUES ('b', '2')").run(); });
    })();
    expect([during, level()]).toEqual([2, 2]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM settings WHERE key IN ('a', 'b')").get()).toEqual({ n: 2 });
  });
});
