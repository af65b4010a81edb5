// The thread that writes an area's tiles into its .part file (backend/offline-writer.ts): each batch the download
// hands over is committed in one transaction here, so the host's thread — which also serves the map its tiles and the
// page its answers — never waits on SQLite while an area downloads. Answers each batch once it is committed (the
// download counts tiles only then) or with the error that stopped it (its SQLite code kept: a full disk is told as
// such).
import { parentPort, workerData } from 'node:worker_threads';
import { PartFile } from './mbtiles-writer.ts';
import { unpackTiles } from './tile-batch.ts';
import type { WriterReply, WriterRequest } from './offline-writer.ts';

const port = parentPort!;
const { path } = workerData as { path: string };
const part = PartFile.open(path);
const reply = (m: WriterReply) => port.postMessage(m);
const failure = (id: number, err: unknown): WriterReply =>
  ({ t: 'failed', id, message: err instanceof Error ? err.message : String(err), code: typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : null });

// Ready once the file is open: the download fetches nothing before its tiles have somewhere to go.
reply({ t: 'ready' });

port.on('message', (m: WriterRequest) => {
  if (m.t === 'close') {
    void (async () => {
      await part?.settled();
      part?.close();
      reply({ t: 'closed' });
    })();
    return;
  }
  if (!part) {
    reply({ t: 'failed', id: m.id, message: `${path} holds no download`, code: null });
    return;
  }
  try {
    part.write(unpackTiles(m.tiles));
    reply({ t: 'written', id: m.id });
  } catch (err) {
    reply(failure(m.id, err));
  }
});
