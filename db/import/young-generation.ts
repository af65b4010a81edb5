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

export interface YoungGenerationCap {
  /** Looks at the young generation's size (cheap: call it once per job); holds it once it has reached the cap. */
  check(): void;
  /** Lets it grow again, as V8 would. */
  release(): void;
}

const NONE: YoungGenerationCap = { check: () => {}, release: () => {} };

export function capYoungGeneration(capMb: number = IMPORT_YOUNG_MB): YoungGenerationCap {
  if (!isMainThread) return NONE;
  const cap = capMb * 1024 * 1024;
  let held = false;
  return {
    check: () => {
      if (held) return;
      // Sizes are powers of two and a growth doubles it: held as soon as it reaches the cap, it never passes it
      // (unless it doubled twice between two checks, which takes more survivors than a job leaves).
      const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      if (!space || space.space_size < cap) return;
      v8.setFlagsFromString('--semi-space-growth-factor=1');
      held = true;
    },
    release: () => {
      if (held) v8.setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH}`);
      held = false;
    },
  };
}
