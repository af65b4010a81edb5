// The order CI's clean checkout runs the test files in. vitest hands files to its workers in the order given, each
// worker taking the next when it is free, so the longest files go first (longest-processing-time scheduling): a long
// file started late runs alone at the end and lengthens the whole run. Without a cache of earlier durations (a clean
// checkout has none) vitest would order by file size, and the chaos test (a small file that kills the engine 100
// times under CI_LONG, minutes in one worker) started last. The durations are measured ones, committed in
// test/durations.json (per project and file, seconds; `node scripts/test-durations.mjs LOG` writes it from a run's
// output); a file not listed yet is placed by its kind: the chaos test first, end-to-end tests next, the rest after.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** 0 for the chaos test, 1 for end-to-end tests, 2 for everything else. */
export function rankOf(moduleId: string): number {
  const path = moduleId.replaceAll('\\', '/');
  if (path.endsWith('/test/e2e/chaos.test.ts')) return 0;
  return path.includes('/test/e2e/') ? 1 : 2;
}

/** What a file not measured yet is taken to last, by its kind: long enough to go before the many short ones. */
const UNMEASURED_S = [600, 40, 2];

/** A file's key in test/durations.json: its project and its path from the repository's root. */
export const durationKey = (project: string, root: string, moduleId: string) => `${project} ${relative(root, moduleId).replaceAll('\\', '/')}`;

/**
 * Files measured shorter than this go after the longer ones, one project after another: a worker runs the files of a
 * project that is not isolated (vitest.config.ts) in one process, loaded modules and all, only while the next file in
 * the queue is of the same project; interleaved with other projects' files, each file would start a process again.
 */
export const SHORT_S = 10;

/** Longest first, the short ones grouped by `group` (see SHORT_S); ties (and every file when nothing is measured) keep vitest's order. */
export function longestFirst<T>(files: readonly T[], seconds: (file: T) => number, group: (file: T) => string = () => ''): T[] {
  return files
    .map((file, i) => ({ file, i, s: seconds(file), g: group(file) }))
    .sort((a, b) => {
      const longA = a.s >= SHORT_S;
      if (longA !== b.s >= SHORT_S) return longA ? -1 : 1;
      return (longA ? 0 : a.g < b.g ? -1 : a.g > b.g ? 1 : 0) || b.s - a.s || a.i - b.i;
    })
    .map(({ file }) => file);
}

function measured(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(root, 'test', 'durations.json'), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const known = measured(root);
    return longestFirst(sorted, (spec) => known[durationKey(spec.project.name, root, spec.moduleId)] ?? UNMEASURED_S[rankOf(spec.moduleId)]!, (spec) => spec.project.name);
  }
}
