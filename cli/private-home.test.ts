// The CLI as a real process (scripts/cli.mjs, the built JavaScript `npm run -s cli` runs) under a permissive umask,
// set here and inherited by the process: nothing it leaves in FURROW_HOME is open to group or others, a home an older
// build left wider is narrowed, and a file exported to a path of the user's choice follows the user's umask.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../test/helpers/process.ts';

const CLI = resolve(ROOT, 'scripts/cli.mjs');
const dir = mkdtempSync(join(tmpdir(), 'furrow-cli-home-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let umask: number;
beforeEach(() => { umask = process.umask(0o022); });
afterEach(() => { process.umask(umask); });

/**
 * Loaded before the CLI (node --import): as the process exits it creates FURROW_PROBE asking for 0666, so the file's
 * mode shows the umask the CLI ended with — what a file SQLite or a library created on its own would have got.
 */
const PROBE = join(dir, 'probe.mjs');
writeFileSync(PROBE, "import { closeSync, openSync } from 'node:fs';\nprocess.on('exit', () => closeSync(openSync(process.env.FURROW_PROBE, 'wx', 0o666)));\n");

function cli(args: string[], home: string, probe?: string): { status: number | null; stdout: string; stderr: string } {
  const preload = probe ? ['--import', pathToFileURL(PROBE).href] : [];
  return spawnSync(process.execPath, [...preload, CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FURROW_HOME: home, FURROW_PROBE: probe ?? '' } });
}

/** The home and everything under it, with permission bits, depth first. */
function tree(path: string): [string, number][] {
  const st = lstatSync(path);
  const self: [string, number] = [path, st.mode & 0o777];
  return st.isDirectory() ? [self, ...readdirSync(path).flatMap((n) => tree(join(path, n)))] : [self];
}

const openToOthers = (home: string) => tree(home).filter(([, mode]) => (mode & 0o077) !== 0);

describe('the CLI in FURROW_HOME', () => {
  it('creates a home that neither group nor others can open', () => {
    const home = join(dir, 'fresh', 'furrow');
    const r = cli(['status', '--json'], home);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(tree(home).map(([p]) => p)).toContain(join(home, 'mirror.db'));
    expect(openToOthers(home)).toEqual([]);
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  it('runs with an owner-only umask, for the files it does not create itself', () => {
    const probe = join(dir, 'created-at-exit');
    const r = cli(['status', '--json'], join(dir, 'umask', 'furrow'), probe);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(statSync(probe).mode & 0o777).toBe(0o600);
  });

  it('narrows a home and a mirror an older build left 0755 and 0644', () => {
    const home = join(dir, 'older', 'furrow');
    expect(cli(['status', '--json'], home).status).toBe(0);
    chmodSync(home, 0o755);
    chmodSync(join(home, 'mirror.db'), 0o644);
    const r = cli(['status', '--json'], home);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(openToOthers(home)).toEqual([]);
  });

  it("exports to a path of the user's choice with the mode the user's umask gives, like any program", () => {
    const home = join(dir, 'export', 'furrow');
    process.umask(0o027);
    const out = join(dir, 'parcels.geojson');
    const r = cli(['export', out], home);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o640);
    expect(openToOthers(home)).toEqual([]);
  });
});
