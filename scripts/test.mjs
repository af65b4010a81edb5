// `npm test`: the typecheck and the lint run beside the tests rather than before them. The tests spend much of their
// time waiting (on child processes, sockets, Chromium, timers), so on CI's two cores the checks fit in that waiting
// instead of adding their minute and a half ahead of it. Their output is kept and printed after the tests' report;
// any of the three failing fails the command. Arguments go to vitest (`npm test -- service/`).
import { spawn } from 'node:child_process';
import console from 'node:console';
import process from 'node:process';
import { Buffer } from 'node:buffer';

/** Runs an npm script with its output kept: resolves to its exit code and what it printed. */
function quietly(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (err) => resolve({ script, code: 1, text: String(err) }));
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), text: Buffer.concat(out).toString('utf8') }));
  });
}

const checks = [quietly('typecheck'), quietly('lint')];
const tests = new Promise((resolve) => {
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
});
// Ctrl+C reaches every child through the process group; this process waits for them to end.
process.on('SIGINT', () => {});

const testCode = await tests;
let failed = testCode !== 0;
for (const { script, code, text } of await Promise.all(checks)) {
  console.log(`\n${code === 0 ? '✓' : '✗'} npm run ${script}${code === 0 ? '' : ` failed (exit ${code})`}`);
  if (text.trim()) console.log(text.trimEnd());
  if (code !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
