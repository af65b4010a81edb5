// The result record every benchmark writes to bench/results/<name>.json, and from which docs/benchmarks.md is generated.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machineFacts, type MachineFacts } from './machine.ts';
import { RESULTS_DIR } from './paths.ts';
import { loadavg } from 'node:os';

export interface Target {
  op: '>=' | '<=' | '<';
  value: number;
}

export interface Metric {
  /** What was measured, as a sentence fragment for the table. */
  label: string;
  value: number;
  unit: string;
  target?: Target;
  /** Only set when there is a target. */
  pass?: boolean;
}

export interface Table {
  title: string;
  columns: string[];
  rows: (string | number)[][];
}

export interface BenchResult {
  name: string;
  title: string;
  /** What the benchmark does, how, and against what. */
  method: string[];
  command: string;
  machine: MachineFacts & { loadavg_end: [number, number, number] };
  duration_s: number;
  metrics: Metric[];
  tables: Table[];
  notes: string[];
  details: Record<string, unknown>;
}

export function check(value: number, target: Target): boolean {
  if (!Number.isFinite(value)) return false;
  return target.op === '>=' ? value >= target.value : target.op === '<=' ? value <= target.value : value < target.value;
}

export function metric(label: string, value: number, unit: string, target?: Target): Metric {
  return target ? { label, value, unit, target, pass: check(value, target) } : { label, value, unit };
}

/** Starts the record: machine facts are taken when the benchmark starts. */
export function startResult(name: string, title: string, command: string): { finish(body: Omit<BenchResult, 'name' | 'title' | 'command' | 'machine' | 'duration_s'>): BenchResult } {
  const machine = machineFacts();
  const t0 = performance.now();
  return {
    finish(body) {
      const la = loadavg();
      const result: BenchResult = {
        name, title, command,
        machine: { ...machine, loadavg_end: [r2(la[0]!), r2(la[1]!), r2(la[2]!)] },
        duration_s: Math.round((performance.now() - t0) / 100) / 10,
        ...body,
      };
      return result;
    },
  };
}

const r2 = (x: number) => Math.round(x * 100) / 100;

export function writeResult(result: BenchResult): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${result.name}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}
