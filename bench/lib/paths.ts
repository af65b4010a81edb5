import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BENCH_DIR = resolve(ROOT, 'bench');
export const RESULTS_DIR = resolve(BENCH_DIR, 'results');
export const DOC_FILE = resolve(ROOT, 'docs/benchmarks.md');
