// The tile thread (backend/parcel-tile-thread.ts): cuts the map's parcel tiles on a read-only connection of its own to
// the mirror, holding the looks and overviews a cut reads (backend/parcel-tile-cutter.ts), kept in step by the
// changes the host posts in order with the cuts. Each cut is answered with one message.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ParcelTileCutter } from './parcel-tile-cutter.ts';
import type { TileThreadMessage, TileThreadReply } from './parcel-tile-thread.ts';

const { file } = workerData as { file: string };
// Read-only: the thread never writes the mirror; WAL lets it read while the host writes.
const db = new Database(file, { readonly: true, fileMustExist: true });
const cutter = new ParcelTileCutter(db);

parentPort!.on('message', (m: TileThreadMessage) => {
  if (m.t === 'warm') {
    void cutter.warm(m.account).catch(() => {});
    return;
  }
  if (m.t === 'changed') {
    cutter.changed(m);
    return;
  }
  let reply: TileThreadReply;
  try {
    const c = cutter.cut(m.account, m.crops, m.z, m.x, m.y);
    reply = { t: 'cut', data: c.data, rowids: c.rowids, overviewBytes: cutter.overviewBytes() };
  } catch (err) {
    reply = { t: 'failed', message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
