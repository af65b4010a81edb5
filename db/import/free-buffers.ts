// Freeing array buffers the import is done with, and why it frees no large one while it runs.

/**
 * Gives back the memory of array buffers nothing will read again, now rather than at the thread's next full
 * collection: their objects outlive a scavenge or two, so they reach the old generation, and their memory (outside the
 * heap) went back only with them. Transferred away (structuredClone) they are detached here, and the clone that owns
 * them is garbage at the next scavenge. Never a buffer something still reads: a detached one reads as empty.
 *
 * Freeing a large buffer costs more than it gives back, though: glibc's malloc mmap()s a block over its threshold
 * (128 KiB at first) and, when such a block is freed, raises the threshold to its size and the trim threshold to
 * twice that, for the whole process — every thread's arena then keeps up to that much freed memory instead of giving
 * it back. The import's 4 MiB windows, its tables' copies and the job table's copy to the worker (3 MiB) raised it to
 * 8 MiB of trim per arena: with the threshold held at 128 KiB (MALLOC_TRIM_THRESHOLD_, for the measurement only) the
 * CLI importing mirror-import's 100,000 parcels peaked 10–14 MB lower. So the import frees no buffer over a few
 * hundred KiB while it runs: the windows are 64 KiB, the tables are made big enough at once and handed on as views,
 * and the job table's polygons are shared with the workers, not copied.
 */
export function freeBuffers(buffers: readonly ArrayBufferLike[]): void {
  structuredClone(null, { transfer: buffers as ArrayBuffer[] });
}
