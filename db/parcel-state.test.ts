// The implicit merge base of a synced parcel (parcel-state.ts parcelBase): NULL means "the row is what the service
// holds", and the first local write of a user field keeps the state it replaces, so the ancestor is never lost.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';
import { parcelBase, parcelStateOfRow } from './parcel-state.ts';
import { setOpState } from './op-transitions.ts';
import { updateRow } from './rows.ts';
import { parcelInputs } from '../test/helpers/sync.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000002';
let dir: string;
let m: Mirror;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-base-'));
  m = Mirror.open(join(dir, 'mirror.db'));
  m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
});
afterEach(() => {
  m.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A parcel as a booked create leaves it: ids written, base left NULL, its op committed. */
function synced(): string {
  const farm = m.write.createFarm(ACC, 'Finca');
  const [p] = m.write.createParcels(farm.local_id, parcelInputs(1, 'b')).created;
  m.syncDb.prepare("UPDATE parcels SET server_id = 7, key = '00000000-0000-4000-8000-000000000007', base = NULL WHERE local_id = ?").run(p!.local_id);
  setOpState(m.syncDb, (m.syncDb.prepare('SELECT id FROM outbox WHERE local_id = ?').all(p!.local_id) as { id: number }[]).map((o) => o.id), 'committed');
  return p!.local_id;
}

describe('parcelBase', () => {
  it('is null for a parcel the service never had, and the row itself for a synced parcel with no base stored', () => {
    const farm = m.write.createFarm(ACC, 'Finca');
    const [fresh] = m.write.createParcels(farm.local_id, parcelInputs(1, 'n')).created;
    expect(parcelBase(m.read.parcel(fresh!.local_id)!)).toBeNull();
    const id = synced();
    const row = m.read.parcel(id)!;
    expect(row.base).toBeNull();
    expect(JSON.parse(parcelBase(row)!)).toEqual(parcelStateOfRow(row));
  });

  it('the first edit of a synced parcel stores the state it replaces; later edits and undo leave that base alone', () => {
    const id = synced();
    const before = parcelStateOfRow(m.read.parcel(id)!);
    m.write.updateParcel(id, { name: 'renamed', metadata: { added: 'here' } });
    const edited = m.read.parcel(id)!;
    expect(edited.name).toBe('renamed');
    expect(JSON.parse(edited.base!)).toEqual(before);
    m.write.updateParcel(id, { name: 'renamed again' });
    expect(JSON.parse(m.read.parcel(id)!.base!)).toEqual(before);
    m.write.undo();
    m.write.undo();
    const undone = m.read.parcel(id)!;
    expect(parcelStateOfRow(undone)).toEqual(before);
    expect(JSON.parse(parcelBase(undone)!)).toEqual(before);
  });

  it('writes that name the base (a pull, a merge) are taken as they are', () => {
    const id = synced();
    // As the pull does when the service changed the parcel and nothing is pending here: the row becomes its base.
    updateRow(m.syncDb, 'parcel', id, { name: 'from the service', base: null });
    expect(m.read.parcel(id)!.base).toBeNull();
    expect(JSON.parse(parcelBase(m.read.parcel(id)!)!).name).toBe('from the service');
  });
});
