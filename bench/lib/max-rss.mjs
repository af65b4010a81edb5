// Preloaded into a process a benchmark measures (node --import): on exit, writes the process's peak resident set
// (worker threads included: they share the process) to the file FURROW_BENCH_RSS_FILE names, in kibibytes.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.FURROW_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
