// A benchmark's side as a whole process: spawned (on `cpus` when given), timed from spawn to exit, its CPU time read
// once it is reaped, its output kept for the caller's checks.
import { spawn, spawnSync } from 'node:child_process';
import { ROOT } from './paths.ts';
import { onCpus } from './service.ts';
import { childrenCpuSeconds } from './machine.ts';
import { r1, r3 } from './stats.ts';

export interface ProcessRun { value: number; cpu_s: number; out: string }

/**
 * `argv` run with node, `env` added to this process's; value: wall ms. A failure's error carries the end of its
 * output, through `tail` when the output is mostly progress lines that would push the error out.
 */
export function timedProcess(argv: string[], env: NodeJS.ProcessEnv = {}, cpus?: string, tail: (out: string) => string = (o) => o): Promise<ProcessRun> {
  // What a fixture left dirty in the page cache is written out now, not by the kernel's flusher in the middle of a
  // timed run: both sides of a pair start with nothing to flush.
  spawnSync('sync');
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  const [command, args] = onCpus(cpus, argv);
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  return new Promise((done, fail) => child.on('close', (status) => {
    const value = r1(performance.now() - t0);
    if (status !== 0) fail(new Error(`${argv.join(' ')} exited ${status}: ${tail(out).slice(-3000)}`));
    else done({ value, cpu_s: r3(childrenCpuSeconds() - cpu0), out });
  }));
}
