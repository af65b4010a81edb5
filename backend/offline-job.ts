// One run of an area's download: the tiles of its journal not yet in its file, fetched a few at a time
// (backend/tile-fetcher.ts) and written as they come (backend/mbtiles-writer.ts). The tiles that arrived during one
// turn of the event loop are committed together on the next (setImmediate): few transactions, and a crash loses no
// more than the requests in flight. Aborting stops taking tiles, drops the answers still coming, and writes what had
// arrived: the file is then a paused download. Many tiles failing in a row (offline, a server refusing every request)
// stop the run early, paused, saying the last failure.
import { tileKey, tilesOf, type TileCoord } from '../core/tiles/tile-math.ts';
import type { FetchedTile, PartFile } from './mbtiles-writer.ts';
import type { TileFetcher } from './tile-fetcher.ts';
import type { OfflineProgress } from '../core/api-offline.ts';

/** Tiles fetched at once: a polite few, as tile usage policies ask (OpenStreetMap's: at most 2 for bulk work). */
export const DEFAULT_CONCURRENCY = 4;
/** Tiles given up on in a row after which the run stops (the server is gone or refuses everything). */
export const MAX_FAILED_IN_A_ROW = 50;
/** Progress is reported at most this often. */
const PROGRESS_MS = 200;

export interface JobOptions {
  concurrency?: number;
  onProgress?: (p: OfflineProgress) => void;
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
  const progress: OfflineProgress = { done: counts.tiles + counts.empty, total: j.total, bytes: counts.bytes, failed: 0 };
  let failedInARow = 0;
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
  let flushing: NodeJS.Immediate | null = null;
  /** A write that failed (the disk full, the file gone): the run stops and the call fails with it. */
  let writeError: unknown = null;
  const flush = () => {
    flushing = null;
    if (!pending.length || writeError) return;
    try {
      part.write(pending.splice(0));
    } catch (err) {
      // Thrown here, in an immediate, it would take the host down: kept, the workers stopped, thrown below.
      writeError = err;
      stop.abort();
      return;
    }
    report();
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
        if (++failedInARow >= MAX_FAILED_IN_A_ROW) {
          stopped = answer.why;
          stop.abort();
        }
        report();
        continue;
      }
      failedInARow = 0;
      const data = answer.kind === 'tile' ? answer.data : null;
      if (data) progress.bytes += data.length;
      progress.done++;
      pending.push({ ...t, data });
      flushing ??= setImmediate(flush);
    }
  };

  report(true);
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY) }, worker));
  } finally {
    if (flushing) clearImmediate(flushing);
    flush();
  }
  if (writeError) throw writeError;
  report(true);
  return { ...progress, stopped };
}
