// Writes test/durations.json from the output of a whole test run (`npm test > LOG 2>&1`, or CI's log): each file's
// duration in seconds, per project, which test/helpers/sequencer.ts orders the files by (the longest first).
//   node scripts/test-durations.mjs LOG
import { readFileSync, writeFileSync } from 'node:fs';
import console from 'node:console';
import process from 'node:process';
import { join } from 'node:path';

const [log] = process.argv.slice(2);
if (!log) {
  console.error('usage: node scripts/test-durations.mjs LOG (the output of a whole test run)');
  process.exit(2);
}
// " ✓  sqlite  service/app.test.ts (12 tests) 3456ms", or ❯ for a file with a failure: reporter lines, colours removed.
// eslint-disable-next-line no-control-regex
const text = readFileSync(log, 'utf8').replace(/\u001b\[[0-9;]*m/g, '');
const durations = {};
for (const [, project, file, ms] of text.matchAll(/^ [✓❯↓] +(\S+) +(\S+\.test\.ts) \([^)]*\)(?: +(\d+)ms)?$/gm)) {
  durations[`${project} ${file}`] = Math.round(Number(ms ?? 0) / 100) / 10;
}
const n = Object.keys(durations).length;
if (n < 100) {
  console.error(`Only ${n} files found in ${log}: is it the output of a whole run?`);
  process.exit(1);
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(import.meta.dirname, '..', 'test', 'durations.json'), `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`test/durations.json: ${n} files, ${Object.values(durations).reduce((a, b) => a + b, 0).toFixed(0)} s in all`);
