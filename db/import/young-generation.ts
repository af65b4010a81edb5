// A cap on the importing thread's young generation while it imports, for a process whose main thread imports (the
// CLI). V8 grows a thread's young generation (its two semi-spaces) up to 16 MB each, 32 MB in all, as objects
// survive its scavenges; an import's writes keep rows alive across scavenges, so the main thread's grew to the full
// 32 MB, which a 100,000-parcel import then kept resident to the end. Its size is fixed when the thread starts
// (--max-semi-space-size), but how fast it grows is a flag V8 reads at each growth (--semi-space-growth-factor):
// once the young generation has reached the cap, growth is set to 1 (none) until the import ends.
//
// The host imports on a thread of its own (backend/import-worker.ts), whose young generation its resourceLimits
// bound: V8's flags are the process's, and the host's main thread should not have its growth changed under it by an
// import, so this applies to the main thread only.

import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/**
 * The cap: both semi-spaces together (V8's new space), in MB, against V8's 32. The flag is the process's, so the
 * import's worker threads stop growing theirs there too (their own limit is db/import/pool.ts YOUNG_GENERATION_MB,
 * also 16). The built CLI importing mirror-import's 100,000 parcels, 4 interleaved rounds at load 3–6 (2026-11-30,
 * with the chunk's rows made as they are inserted, index.ts ChunkRows): peak RSS 155–160 MB with 16 against
 * 184–208 MB before both (no cap, row objects held per chunk), CPU time median 6.86 s against 6.84 s, wall time
 * 0.85–1.0x. 8 peaked ~5 MB lower (149–155 MB) but took 5–10 % more CPU time and ~5 % more wall time (both threads'
 * young generations then stopped at 8 MB, and survivors were copied twice as often). Holding it at V8's first size
 * instead (growth 1 from the start) cost 6–10 % more CPU time.
 */
export const IMPORT_YOUNG_MB = 16;

/** V8's own growth factor (its default), put back when the import ends. */
const V8_GROWTH = 2;

/**
 * The young generation the import's worker threads work with, in MB (both semi-spaces): they start with it
 * (startingYoungGeneration) instead of growing to it, and in the CLI hold it (holdWorkerGrowth). A worker's size had
 * depended on when the importing thread's cap stopped all growth: one still at 2 or 4 MB then stayed there and
 * promoted most of each job (its old generation climbing 5 -> 28 MB between full collections), one that had reached
 * 16 MB kept that. The built CLI importing mirror-import's 100,000 parcels, at load 9-11 (2026-11-30): peak RSS
 * 118-124 MB in 9 runs with this, against 122-156 MB (median 133) in the runs between them without; workers at 16 MB
 * peaked at 132-156 MB, at 4 MB at 140 MB; CPU time of the process unchanged (6.0-6.6 s both). Their limit stays 16
 * (pool.ts): a limit of 8 peaked at 141-144 MB in 6 runs, with the same 8 MB young generation.
 */
export const WORKER_YOUNG_MB = 8;

const MB = 1024 * 1024;
const newSpaceSize = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/**
 * Threads whose isolates are created while this holds start with a young generation of WORKER_YOUNG_MB (V8 reads
 * --min-semi-space-size once, as a thread's heap is made). Call the function returned once they have started: later
 * threads (the host's others) start as V8 would start them.
 */
export function startingYoungGeneration(): () => void {
  v8.setFlagsFromString(`--min-semi-space-size=${WORKER_YOUNG_MB / 2}`);
  return () => v8.setFlagsFromString('--min-semi-space-size=0');
}

/**
 * For an import's worker thread in a process whose main thread imports (the CLI): stops all growth (the flag is the
 * process's) once this thread's young generation is WORKER_YOUNG_MB, which it is from the start, so at its first job.
 * The importing thread's young generation stays where it is then (8 MB in the runs above, as the split had grown it),
 * and its cap puts growth back when the import ends. One per import.
 */
export function holdWorkerGrowth(): () => void {
  return growthHold(WORKER_YOUNG_MB * MB);
}

/**
 * Stops all growth (the flag is the process's) the first time it is called with this thread's young generation at
 * `bytes` or more. Sizes are powers of two and a growth doubles it: held as soon as it reaches `bytes`, it never
 * passes it (unless it doubled twice between two calls, which takes more survivors than a job leaves).
 */
function growthHold(bytes: number): () => void {
  let held = false;
  return () => {
    if (held || newSpaceSize() < bytes) return;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    held = true;
  };
}

export interface YoungGenerationCap {
  /** Looks at the young generation's size (cheap: call it once per job); holds it once it has reached the cap. */
  check(): void;
  /** Lets it grow again, as V8 would. */
  release(): void;
}

const NONE: YoungGenerationCap = { check: () => {}, release: () => {} };

export function capYoungGeneration(capMb: number = IMPORT_YOUNG_MB): YoungGenerationCap {
  if (!isMainThread) return NONE;
  const cap = capMb * MB;
  let hold = growthHold(cap);
  return {
    check: () => hold(),
    release: () => {
      // Also when the import's workers held growth rather than this thread (holdWorkerGrowth).
      v8.setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH}`);
      hold = growthHold(cap);
    },
  };
}
