// What the offline-area tests share: a home whose mirror holds an account with two farms (in Berlin, 3 km apart),
// the layers that name a tile server, and a look at the layers folder.
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Mirror } from '../db/mirror.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import type { MapLayer } from '../core/api-layers.ts';
import { rgbPng } from '../test/helpers/png.ts';

export const ACC = 'acc-00000000-0000-4000-8000-0000000000f1';
export const world: MapLayer = { id: 'world', name: 'World (Natural Earth)', visible: true, opacity: 1, source: { kind: 'world' }, attribution: 'Made with Natural Earth' };
export const xyzLayer = (url: string, id = 'ortho'): MapLayer => ({ id, name: 'Orthophoto', visible: true, opacity: 1, source: { kind: 'xyz', url }, attribution: '© Test tiles' });

/** A tile whose colour says where it is, so that a tile stored in the wrong place shows. */
export const tileOf = (z: number, x: number, y: number): Buffer => rgbPng(16, () => [x % 251, y % 241, z * 11]);

/** A new FURROW_HOME: the account, farm North (two parcels) and farm South (one), and an empty farm. */
export function newHome(root: string): { home: string; north: string; south: string; empty: string } {
  const home = mkdtempSync(join(root, 'home-'));
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const m = Mirror.open(join(home, 'mirror.db'));
  try {
    m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
    const north = m.write.createFarm(ACC, 'North').local_id;
    m.write.createParcels(north, [polygonParcel('N1', 13.400, 52.520, 200), polygonParcel('N2', 13.404, 52.521, 200)]);
    const south = m.write.createFarm(ACC, 'South').local_id;
    m.write.createParcels(south, [polygonParcel('S1', 13.420, 52.500, 200)]);
    const empty = m.write.createFarm(ACC, 'Empty').local_id;
    return { home, north, south, empty };
  } finally {
    m.close();
  }
}

export const tempRoot = (): string => mkdtempSync(join(tmpdir(), 'furrow-offline-areas-'));

/** The files of the layers folder, sorted. */
export const layerFiles = (home: string): string[] => (existsSync(join(home, 'layers')) ? readdirSync(join(home, 'layers')).sort() : []);

/** Tiles in an MBTiles file (stored ones; empty ones are not). */
export function tileCount(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM tiles').pluck().get() as number;
  } finally {
    db.close();
  }
}
