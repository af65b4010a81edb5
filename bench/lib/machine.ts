// Facts about the machine and the moment a benchmark ran, and what else was using the CPU meanwhile.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, release } from 'node:os';
import { ROOT } from './paths.ts';

export interface MachineFacts {
  node: string;
  cpu: string;
  cores: number;
  memory_gb: number;
  os: string;
  date: string;
  commit: string;
  /**
   * The working tree had uncommitted or untracked changes (other than the benchmarks' own outputs, which a run
   * rewrites): the numbers are for that tree, not the commit alone.
   */
  dirty: boolean;
  loadavg_start: [number, number, number];
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function machineFacts(): MachineFacts {
  const c = cpus();
  const la = loadavg();
  return {
    node: process.version,
    cpu: c[0]?.model ?? 'unknown',
    cores: c.length,
    memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${process.platform} ${release()}`,
    date: new Date().toISOString(),
    commit: git(['rev-parse', 'HEAD']) || 'unknown',
    dirty: git(['status', '--porcelain', '--', '.', ':(exclude)bench/results', ':(exclude)docs/benchmarks.md']) !== '',
    loadavg_start: [round2(la[0]!), round2(la[1]!), round2(la[2]!)],
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Resident set size of a live process, in KiB, from /proc/<pid>/status (VmRSS); VmHWM is its peak. */
export function procMemoryKb(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The fields of a /proc …/stat file after the command name (which may hold spaces and parentheses: after the last ')'). */
export function statFields(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU seconds (user + system) a live process has used so far, from /proc/<pid>/stat; with `tid`, one thread's
 * (/proc/<pid>/task/<tid>/stat; the main thread's tid is the pid).
 */
export function procCpuSeconds(pid: number, tid?: number): number {
  try {
    const fields = statFields(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`);
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime
  } catch {
    return 0; // exited
  }
}

/** CPU seconds of this process's waited-for children so far (cutime + cstime, /proc/self/stat): a child's whole CPU time once it has exited. */
export function childrenCpuSeconds(): number {
  const fields = statFields('/proc/self/stat');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/** Busy CPU seconds of the whole machine (every core), from /proc/stat. */
function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, user, nice, system, , iowait, irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  void iowait;
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_SECOND;
}

export interface CpuWindow {
  seconds: number;
  /** Average cores used by each named process of ours over the window. */
  ours: Record<string, number>;
  /** Average cores used by everything else on the machine (other engineers' tests, the OS): the noise. */
  others: number;
}

/**
 * Starts a window over which CPU use is split between our processes (by name) and everything else.
 * `threads` names single threads of those processes ({ pid, tid }), reported in `ours` but not counted twice.
 */
export function cpuWindow(pids: Record<string, number>, threads: Record<string, { pid: number; tid: number }> = {}): { end(): CpuWindow } {
  const t0 = performance.now();
  const busy0 = machineBusySeconds();
  const start: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) start[name] = procCpuSeconds(pid);
  for (const [name, t] of Object.entries(threads)) start[name] = procCpuSeconds(t.pid, t.tid);
  return {
    end() {
      const seconds = (performance.now() - t0) / 1000;
      const busy = machineBusySeconds() - busy0;
      const ours: Record<string, number> = {};
      let oursTotal = 0;
      for (const [name, pid] of Object.entries(pids)) {
        const used = procCpuSeconds(pid) - (start[name] ?? 0);
        oursTotal += used;
        ours[name] = round3(used / seconds);
      }
      for (const [name, t] of Object.entries(threads)) ours[name] = round3((procCpuSeconds(t.pid, t.tid) - (start[name] ?? 0)) / seconds);
      return { seconds: round3(seconds), ours, others: round2(Math.max(0, busy - oursTotal) / seconds) };
    },
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
