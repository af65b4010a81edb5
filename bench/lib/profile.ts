// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: self time per function, and a
// split into categories decided by the caller from each sample's whole stack.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.ts';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export interface Frame { fn: string; url: string; line: number }

export interface ProfileSummary {
  total_ms: number;
  categories: { category: string; ms: number; share: number }[];
  top_self: { function: string; ms: number; share: number }[];
}

const shortUrl = (url: string) => url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, '');

/** Every thread's profile in the directory: the main thread (…0.<seq>), tsx's loader thread, worker threads. */
export function threadProfiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort().map((f) => join(dir, f));
}

/** The main thread's profile (CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile); tsx's loader thread writes its own. */
export function latestProfile(dir: string): string {
  const files = readdirSync(dir).filter((f) => /\.0\.\d+\.cpuprofile$/.test(f)).sort();
  if (!files.length) throw new Error(`no .cpuprofile in ${dir}`);
  return join(dir, files[files.length - 1]!);
}

/** CLOCK_MONOTONIC in µs: the clock V8 stamps profiles with, shared by every process on the machine. */
/**
 * What a sample is when its leaf says so alone — no stack, idle (waiting for `idle`), the garbage collector, V8's
 * own — or null when the caller's classifier must look at the stack.
 */
export function leafKind(stack: Frame[], idle: string): string | null {
  const leaf = stack[0];
  if (!leaf) return 'other';
  if (leaf.fn === '(idle)') return `idle (${idle})`;
  if (leaf.fn === '(garbage collector)') return 'garbage collection';
  if (leaf.fn === '(program)') return 'V8 / native, unattributed';
  return null;
}

export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * `classify` gets the stack leaf first. `window` (monotonicUs() readings taken by any process) limits the
 * summary to the measured phase, leaving out start-up and warm-up.
 */
export function summarizeProfile(file: string, classify: (stack: Frame[]) => string, window?: { from_us: number; to_us: number }, top = 25): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const stackCache = new Map<number, Frame[]>();
  const stackOf = (id: number): Frame[] => {
    let s = stackCache.get(id);
    if (s) return s;
    s = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.functionName === '(root)') break;
      s.push({ fn: f.functionName, url: shortUrl(f.url), line: f.lineNumber + 1 });
    }
    stackCache.set(id, s);
    return s;
  };
  const self = new Map<string, number>();
  const cats = new Map<string, number>();
  let total = 0;
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i]!;
    // Chrome's convention: a sample lasts until the next one.
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    if (window && (t < window.from_us || t > window.to_us)) continue;
    const stack = stackOf(p.samples[i]!);
    const leaf = stack[0];
    const key = leaf ? `${leaf.fn || '(anonymous)'}${leaf.url ? ` ${leaf.url}:${leaf.line}` : ''}` : '(root)';
    self.set(key, (self.get(key) ?? 0) + dt);
    const c = classify(stack);
    cats.set(c, (cats.get(c) ?? 0) + dt);
    total += dt;
  }
  const share = (ms: number) => Math.round((ms / (total || 1)) * 1000) / 10;
  return {
    total_ms: Math.round(total),
    categories: [...cats].sort((a, b) => b[1] - a[1]).map(([category, ms]) => ({ category, ms: Math.round(ms), share: share(ms) })),
    top_self: [...self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, ms]) => ({ function: fn, ms: Math.round(ms), share: share(ms) })),
  };
}
