// V8 flags for a sync, push or pull on the command line, set once the engine is loaded and before anything is sent
// (CliIo.beforeRequests): after Node's modules are loaded, because V8 refuses their code cache once a flag has
// changed (loading them after cost ~28 ms more). Process-wide: so only for the CLI's own process, never in tests or
// in the app's host.
import { setFlagsFromString } from 'node:v8';

/**
 * How much a thread's young generation grows at a time when too many objects survive its scavenges: V8 doubles it
 * (1, 2, 4, 8, 16 MB a semi-space), each size kept for several scavenges. A push keeps each group's rows, request
 * bodies and answers alive across scavenges, so while it grew the young generation promoted them to the old one and a
 * full collection followed early in the push (10–21 ms, the first answers waiting behind it). Grown at once to V8's
 * largest (16 MB a semi-space, 32 MB in all: a CLI process can afford it), a push of 20,000 squares collected 15–16
 * times in 38–52 ms instead of 22–25 times in 54–75, the service idle for want of a request 84–148 ms instead of
 * 127–184, and the CLI used 0.05–0.1 s less CPU (4 interleaved pinned pairs, load 1.5–2.3, 2026-11-30: answers and
 * collections timed with undici's diagnostics channels and perf_hooks in the CLI, the service's requests with
 * Node's HTTP ones).
 */
export const YOUNG_GROWTH_FACTOR = 16;

/**
 * undici parses HTTP with llhttp, a WebAssembly module: V8 runs it compiled by its baseline compiler (Liftoff), and
 * once the parse function has run a while it compiles it again with its optimizing one, on a background thread that
 * the process waits for at its exit. That compile cost ~0.09 s of CPU (perf: a third of an unchanged pull's), and
 * even in a first pull of 50,000 parcels it never paid for itself (the same CPU without it: the parser reads only the
 * answers' heads and chunk sizes). So this process runs WebAssembly with baseline code only, and grows its young
 * generation at once (YOUNG_GROWTH_FACTOR).
 */
export function syncFlags(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GROWTH_FACTOR}`);
}
