// The order CI's clean checkout runs the test files in. Without a cache of earlier durations vitest runs the larger
// files first, and the chaos test (a small file that kills the engine 100 times under CI_LONG, over six minutes in
// one worker) started last and ran alone at the end, lengthening the whole run by minutes. The longest-running kinds
// go first: the chaos test, then the end-to-end tests (a Chromium and an app each), then the rest in vitest's order.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** 0 for the chaos test, 1 for end-to-end tests, 2 for everything else. */
export function rankOf(moduleId: string): number {
  const path = moduleId.replaceAll('\\', '/');
  if (path.endsWith('/test/e2e/chaos.test.ts')) return 0;
  return path.includes('/test/e2e/') ? 1 : 2;
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // A stable sort: within a rank, vitest's own order (its cache of durations when it has one).
    return sorted.map((spec, i) => ({ spec, i, rank: rankOf(spec.moduleId) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
