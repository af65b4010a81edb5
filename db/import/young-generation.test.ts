// The import's cap on the main thread's young generation (young-generation.ts), in a process of its own: V8's flags
// are the process's, and this test process's young generation has grown already.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const MODULE = new URL('./young-generation.ts', import.meta.url).href;

// Objects that live through a few scavenges (300,000 at a time), as an import's rows do: V8 grows the young
// generation for them, to 32 MB when nothing holds it.
const CHILD = `
import v8 from 'node:v8';
import { capYoungGeneration } from ${JSON.stringify(MODULE)};
const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const churn = (check) => {
  let keep = [];
  for (let i = 0; i < 4e6; i++) {
    keep.push({ i });
    if (keep.length > 300000) keep = [];
    if (i % 5000 === 0) check();
  }
};
const cap = capYoungGeneration(16);
const before = size();
churn(cap.check);
const held = size();
cap.release();
churn(() => {});
console.log(JSON.stringify({ before, held, after: size() }));
`;

describe('capYoungGeneration', () => {
  it('holds the main thread young generation at the cap while importing, and lets it grow again after', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status, r.stderr).toBe(0);
    const { before, held, after } = JSON.parse(r.stdout) as { before: number; held: number; after: number };
    expect(before).toBeLessThan(16);
    expect(held).toBe(16);
    expect(after).toBe(32);
  });

  it('starts the threads made meanwhile with the workers young generation, and later ones as V8 would', () => {
    const child = `
import { Worker } from 'node:worker_threads';
import { startingYoungGeneration, WORKER_YOUNG_MB } from ${JSON.stringify(MODULE)};
const SIZE = "import v8 from 'node:v8'; import { parentPort } from 'node:worker_threads'; parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576)";
const youngOf = () => new Promise((done) => { const w = new Worker(SIZE, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 16 } }); w.once('message', (mb) => { void w.terminate(); done(mb); }); });
const restore = startingYoungGeneration();
const started = await youngOf();
restore();
console.log(JSON.stringify({ want: WORKER_YOUNG_MB, started, later: await youngOf() }));
`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status, r.stderr).toBe(0);
    const { want, started, later } = JSON.parse(r.stdout) as { want: number; started: number; later: number };
    expect(started).toBe(want);
    expect(later).toBeLessThan(want);
  });
});
