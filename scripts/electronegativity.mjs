// The electronegativity gate: scans the Electron glue (electron/, its TypeScript sources, which the scanner parses)
// with @doyensec/electronegativity and fails on any finding not on the reviewed allowlist. The scanner itself exits
// 0 whatever it finds, so its SARIF output is read here. An allowlist entry that no longer matches a finding fails
// too: the list stays the reviewed truth, not a pile of old excuses.
//
//   node scripts/electronegativity.mjs [dir] [--allowlist file]   (defaults: electron/, electron/electronegativity-allowlist.json)
//
// Offline and deterministic: the scanner fetches translations (and, in one check, Electron's release list) from the
// network; here every DNS lookup fails at once, with an error code got does not retry, so a run takes seconds and
// says the same on every machine. The release check is left out: which Electron is current is npm's business (the
// locked version), not a property of this code.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OFFLINE = 'import dns from "node:dns"; dns.lookup = (host, o, cb) => process.nextTick(typeof o === "function" ? o : cb, '
  + 'Object.assign(new Error(`offline: ${host}`), { code: "EOFFLINE" }));';

/** The Electron version the checks assume: the installed one, else the one package.json asks for. */
function electronVersion() {
  const installed = join(ROOT, 'node_modules/electron/package.json');
  if (existsSync(installed)) return JSON.parse(readFileSync(installed, 'utf8')).version;
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const wanted = pkg.optionalDependencies?.electron ?? pkg.devDependencies?.electron;
  return String(wanted).replace(/^[^\d]*/, '');
}

/** The scanner's findings in `dir`: check id, file relative to `dir` ('' for the application as a whole), line. */
export function scan(dir) {
  const out = mkdtempSync(join(tmpdir(), 'electronegativity-'));
  try {
    const bin = createRequire(import.meta.url).resolve('@doyensec/electronegativity/dist/index.js');
    const sarif = join(out, 'findings.sarif');
    const r = spawnSync(process.execPath, [
      '--import', `data:text/javascript,${encodeURIComponent(OFFLINE)}`, bin,
      '-i', resolve(dir), '-o', sarif, '-r', '-v', 'false', '-e', electronVersion(), '-x', 'AvailableSecurityFixesGlobalCheck',
    ], { encoding: 'utf8' });
    if (r.status !== 0 || !existsSync(sarif)) throw new Error(`electronegativity failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
    const results = JSON.parse(readFileSync(sarif, 'utf8')).runs?.[0]?.results ?? [];
    return results.map((f) => {
      const where = f.locations?.[0]?.physicalLocation;
      const uri = String(where?.artifactLocation?.uri ?? '');
      return { check: f.ruleId, file: uri.startsWith('file:') ? '' : uri, line: where?.region?.startLine ?? 0, message: f.message?.text ?? '' };
    });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Findings not on the allowlist (entries `{ check, file, reason }`, matched by check and file: lines move with every
 * edit), and entries that match nothing.
 */
export function judge(findings, allowlist) {
  for (const e of allowlist) {
    if (!e.check || typeof e.file !== 'string' || !e.reason?.trim()) throw new Error(`allowlist entry needs check, file and a reason: ${JSON.stringify(e)}`);
  }
  const allowed = (f) => allowlist.some((e) => e.check === f.check && e.file === f.file);
  return {
    unreviewed: findings.filter((f) => !allowed(f)),
    stale: allowlist.filter((e) => !findings.some((f) => f.check === e.check && f.file === e.file)),
  };
}

/** Scans `dir` and judges it: the lines to print and whether the gate passes. */
export function gate(dir, allowlistFile) {
  const findings = scan(dir);
  const allowlist = existsSync(allowlistFile) ? JSON.parse(readFileSync(allowlistFile, 'utf8')) : [];
  const { unreviewed, stale } = judge(findings, allowlist);
  const lines = [
    `electronegativity: ${findings.length} finding(s) in ${relative(ROOT, resolve(dir)) || '.'}, ${findings.length - unreviewed.length} on the reviewed allowlist`,
    ...unreviewed.map((f) => `  NOT REVIEWED ${f.check} ${f.file || '(application)'}:${f.line} ${f.message}`),
    ...stale.map((e) => `  STALE allowlist entry (nothing matches it any more: remove it) ${e.check} ${e.file || '(application)'}`),
  ];
  if (unreviewed.length) lines.push(`Fix them, or review each and add it to ${relative(ROOT, allowlistFile)} with its reason.`);
  return { ok: unreviewed.length === 0 && stale.length === 0, lines, findings };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--allowlist');
  const allowlistFile = resolve(at >= 0 ? args.splice(at, 2)[1] : join(ROOT, 'electron/electronegativity-allowlist.json'));
  const { ok, lines } = gate(args[0] ?? join(ROOT, 'electron'), allowlistFile);
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exit(ok ? 0 : 1);
}
