// The push's booking of created parcels (setParcelServerIds) on a real mirror file: by rowid when the push knows it,
// never into another parcel's row.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';
import { setParcelServerIds } from './rows.ts';
import { polygonParcel } from '../test/helpers/service.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000004';
const KEY_A = '0b8f6c3e-1f2a-4c5d-9e8f-0a1b2c3d4e5f';
const KEY_B = '1c9a7d4f-2a3b-4d6e-8f9a-1b2c3d4e5f60';
let dir: string;
let m: Mirror;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-rows-'));
  m = Mirror.open(join(dir, 'mirror.db'));
  m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
});
afterEach(() => {
  m.close();
  rmSync(dir, { recursive: true, force: true });
});

function twoParcels() {
  const farm = m.write.createFarm(ACC, 'Rows');
  const { created } = m.write.createParcels(farm.local_id, [polygonParcel('a', -5.99, 37.39), polygonParcel('b', -4.78, 37.88)]);
  const rowid = (localId: string) => m.syncDb.prepare('SELECT rowid FROM parcels WHERE local_id = ?').pluck().get(localId) as number;
  return created.map((c) => ({ localId: c.local_id, rowid: rowid(c.local_id) }));
}

const ids = (localId: string) => m.syncDb.prepare('SELECT server_id, key, base FROM parcels WHERE local_id = ?').get(localId);

describe('setParcelServerIds', () => {
  it('writes each parcel its ids by rowid, and by local id when the rowid is not known', () => {
    const [a, b] = twoParcels() as [{ localId: string; rowid: number }, { localId: string; rowid: number }];
    setParcelServerIds(m.syncDb, [
      { localId: a.localId, rowid: a.rowid, serverId: 11, key: KEY_A, base: null },
      { localId: b.localId, serverId: 12, key: KEY_B, base: '{"name":"b"}' },
    ]);
    expect(ids(a.localId)).toEqual({ server_id: 11, key: KEY_A, base: null });
    expect(ids(b.localId)).toEqual({ server_id: 12, key: KEY_B, base: '{"name":"b"}' });
  });

  it('never writes another parcel: a rowid that is not the parcel\'s falls back to its local id', () => {
    const [a, b] = twoParcels() as [{ localId: string; rowid: number }, { localId: string; rowid: number }];
    // A's ids with B's rowid (a row replaced under that rowid since the push planned it, say): B stays as it was.
    setParcelServerIds(m.syncDb, [{ localId: a.localId, rowid: b.rowid, serverId: 21, key: KEY_A, base: null }]);
    expect(ids(a.localId)).toEqual({ server_id: 21, key: KEY_A, base: null });
    expect(ids(b.localId)).toEqual({ server_id: null, key: null, base: null });
  });
});
