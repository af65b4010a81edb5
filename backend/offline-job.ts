// One run of an area's download: the tiles of its journal not yet in its file, fetched a few at a time
// (backend/tile-fetcher.ts) and written in batches (backend/mbtiles-writer.ts): the tiles that arrived within
// COMMIT_MS (or BATCH_BYTES of them, whichever comes first) are committed in one transaction. Fewer, larger
// transactions cost the host less per tile (each commit rewrites the b-tree's upper pages and the journal's header);
// a crash loses no more than the tiles of the batch not yet committed and those in flight, fetched again on resume.
// Progress counts tiles once they are committed, so what it said is in the file. Aborting stops taking tiles, drops
// the answers still coming, and writes what had arrived: the file is then a paused download. Many tiles failing in a
// row (a server refusing every request; fewer when no server answers at all: offline, the server gone) stop the run
// early, paused, saying the last failure.
import { tileKey, tilesOf, type TileCoord } from '../core/tiles/tile-math.ts';
import type { FetchedTile, PartFile } from './mbtiles-writer.ts';
import type { TileFetcher } from './tile-fetcher.ts';
import type { TileSink } from './offline-writer.ts';
import type { OfflineProgress } from '../core/api-offline.ts';

/** Tiles fetched at once: a polite few, as tile usage policies ask (OpenStreetMap's: at most 2 for bulk work). */
export const DEFAULT_CONCURRENCY = 4;
/** Tiles given up on in a row after which the run stops (the server refuses everything). */
export const MAX_FAILED_IN_A_ROW = 50;
/**
 * Tiles in a row for which no server answered at all (offline, the server gone) after which the run stops: each was
 * tried with backoff already, so two rounds of the workers say it; going on would spend minutes on every tile.
 */
export const MAX_UNREACHABLE_IN_A_ROW = 2 * DEFAULT_CONCURRENCY;
/** Progress is reported at most this often. */
const PROGRESS_MS = 200;
/** The longest a fetched tile waits to be committed: what a crash may make the resume fetch again. */
export const COMMIT_MS = 100;
/** Bytes of tiles after which they are committed without waiting for COMMIT_MS (a fast server's burst). */
const BATCH_BYTES = 4 * 1024 * 1024;

export interface JobOptions {
  concurrency?: number;
  onProgress?: (p: OfflineProgress) => void;
  /** Where the batches are committed: the file's own connection on this thread unless given (the host: a thread's). */
  sink?: TileSink;
}

export interface JobOutcome extends OfflineProgress {
  /** Set when the run stopped early (tiles failing in a row): the last failure, in words. */
  stopped: string | null;
}

export async function runDownload(
  part: PartFile, urlOf: (t: TileCoord) => string | null, fetcher: TileFetcher, signal: AbortSignal, opts: JobOptions = {},
): Promise<JobOutcome> {
  const j = part.journal;
  const done = part.doneKeys();
  const counts = part.counts();
  const sink: TileSink = opts.sink ?? { write: (tiles) => Promise.resolve().then(() => part.write(tiles)) };
  const progress: OfflineProgress = { done: counts.tiles + counts.empty, total: j.total, bytes: counts.bytes, failed: 0 };
  let failedInARow = 0;
  let unreachableInARow = 0;
  let stopped: string | null = null;
  let lastReport = 0;
  const report = (force = false) => {
    const now = Date.now();
    if (!force && now - lastReport < PROGRESS_MS) return;
    lastReport = now;
    opts.onProgress?.({ ...progress });
  };

  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const pending: FetchedTile[] = [];
  let pendingBytes = 0;
  let flushing: NodeJS.Timeout | null = null;
  /** The batch being committed: one at a time, in order; tiles arriving meanwhile wait for the next. */
  let writing: Promise<void> | null = null;
  /** A write that failed (the disk full, the file gone): the run stops and the call fails with it. */
  let writeError: unknown = null;
  const flush = () => {
    if (flushing) clearTimeout(flushing);
    flushing = null;
    if (writing || !pending.length || writeError) return;
    const batch = pending.splice(0);
    pendingBytes = 0;
    // Counted now: a tile's bytes may move to the writing thread (offline-writer.ts), leaving nothing here to measure.
    let tiles = 0;
    let bytes = 0;
    for (const t of batch) {
      if (t.failed !== undefined) continue;
      tiles++;
      bytes += t.data?.length ?? 0;
    }
    writing = sink.write(batch).then(() => {
      progress.done += tiles;
      progress.bytes += bytes;
      report();
    }, (err: unknown) => {
      // Kept, the workers stopped, thrown below: the run ends paused at what was committed.
      writeError = err;
      stop.abort();
    }).finally(() => {
      writing = null;
      // What arrived during the write goes next: at once when it is a full batch, else within COMMIT_MS.
      if (pendingBytes >= BATCH_BYTES) flush();
      else if (pending.length) flushing ??= setTimeout(flush, COMMIT_MS);
    });
  };
  /** Everything fetched committed (or the write failed). */
  const drain = async () => {
    for (;;) {
      flush();
      if (!writing) return;
      await writing;
    }
  };

  const todo = (function* () {
    for (const t of tilesOf(j.boxes, j.minZoom, j.maxZoom)) if (!done.has(tileKey(t.z, t.x, t.y))) yield t;
  })();

  const worker = async () => {
    for (let next = todo.next(); !next.done && !both.aborted; next = todo.next()) {
      const t = next.value;
      const url = urlOf(t);
      const answer = url === null ? { kind: 'empty' as const } : await fetcher.fetch(url).catch((err: unknown) => {
        if (both.aborted) return null;
        throw err;
      });
      if (answer === null || both.aborted) return;
      if (answer.kind === 'failed') {
        progress.failed++;
        // Recorded in the file: a paused download says how many, and may be kept without them.
        pending.push({ ...t, data: null, failed: answer.why });
        flushing ??= setTimeout(flush, COMMIT_MS);
        unreachableInARow = answer.unreachable ? unreachableInARow + 1 : 0;
        if (++failedInARow >= MAX_FAILED_IN_A_ROW || unreachableInARow >= MAX_UNREACHABLE_IN_A_ROW) {
          stopped = answer.why;
          stop.abort();
        }
        report();
        continue;
      }
      failedInARow = 0;
      unreachableInARow = 0;
      const data = answer.kind === 'tile' ? answer.data : null;
      pending.push({ ...t, data });
      pendingBytes += data?.length ?? 0;
      if (pendingBytes >= BATCH_BYTES) flush();
      else flushing ??= setTimeout(flush, COMMIT_MS);
      // The disk slower than the network: fetching waits rather than holding ever more tiles in memory.
      while (writing && pendingBytes >= 2 * BATCH_BYTES) await writing;
    }
  };

  report(true);
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY) }, worker));
  } finally {
    await drain();
  }
  if (writeError) throw writeError;
  report(true);
  return { ...progress, stopped };
}
