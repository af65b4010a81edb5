// The headless CLI's contract, as a script would use it, against a real service on 127.0.0.1. Most cases call
// runCli in-process (the very function the script runs, without a process start each); a few spawn the real
// script for what only a process shows: the exit code and streams of `npm run -s cli`, and a whole flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'undici';
import { ROOT, freePort, rotateApiKey, serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';
import { square } from '../test/helpers/service.ts';
import { runCli, type CliIo } from './main.ts';
import { committedGdalFixture } from '../db/import/fixtures/gdal.ts';

const CLI = resolve(ROOT, 'scripts/cli.mjs');
let dir: string;
let svc: ServiceProcess;
let org: { organization_id: string; api_key: string };
let apiKey: string;
let account: string;
const home = () => join(dir, 'home');
const ENV = { FURROW_SETTLE_MS: '300', FURROW_MAX_WAIT_MS: '20000' };

interface Run { status: number; stdout: string; stderr: string }

/** The CLI in this process, with its own environment and captured output. */
async function cli(args: string[], env: Record<string, string> = {}, io: Pick<CliIo, 'beforeRequests'> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    ...io,
    env: { FURROW_HOME: home(), ...ENV, ...env },
    stdout: { write: (s: string) => { stdout += s; } },
    stderr: { write: (s: string) => { stderr += s; } },
  });
  return { status, stdout, stderr };
}

/** The real script, as `npm run -s cli -- …` runs it: the built JavaScript (scripts/cli.mjs builds dist/ when a source changed). */
function spawnCli(args: string[], furrowHome: string): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FURROW_HOME: furrowHome, ...ENV } });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const statusJson = async () => JSON.parse((await cli(['status', '--json'])).stdout) as Record<string, unknown>;
/**
 * A connection of its own (a Client per call), closed after the answer: spawnSync blocks this thread for as long as a CLI runs, so
 * a kept-alive socket can outlive the service's keep-alive (72 s) unnoticed, and the next request on it failed with
 * "other side closed" after a long import and push on a loaded machine.
 */
async function onService(key: string, acc: string): Promise<{ id: number; name: string; parcel_count: number }[]> {
  const client = new Client(svc.url);
  try {
    const res = await client.request({ method: 'GET', path: '/api/farms/', headers: { 'x-api-key': key, 'service-account': acc } });
    return await res.body.json() as { id: number; name: string; parcel_count: number }[];
  } finally {
    await client.close();
  }
}

function geojson(file: string, features: { name: string; coords?: number[][][]; hectares?: number; point?: number[]; props?: Record<string, unknown> }[]): string {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify({
    type: 'FeatureCollection',
    features: features.map((f) => ({
      type: 'Feature',
      properties: { name: f.name, ...(f.hectares !== undefined ? { hectares: f.hectares } : {}), ...f.props },
      geometry: f.point ? { type: 'Point', coordinates: f.point } : { type: 'Polygon', coordinates: f.coords },
    })),
  }));
  return path;
}

async function newAccount(email: string): Promise<string> {
  const res = await fetch(`${svc.url}/api/accounts/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: email }) });
  return ((await res.json()) as { id: string }).id;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-cli-'));
  org = serviceCli(join(dir, 'svc'), ['create-org', '--name', 'CLI test']).json as typeof org;
  apiKey = org.api_key;
  svc = await spawnService(join(dir, 'svc'));
  account = await newAccount('cli@example.com');
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run -s cli (real processes)', () => {
  it('with no command prints the usage on stderr and exits 2; --help prints it on stdout and exits 0', async () => {
    const r = spawnSync('npm', ['run', '-s', 'cli'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FURROW_HOME: join(dir, 'nohome') } });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Usage: npm run -s cli -- <command>/);
    const help = await cli(['--help']);
    expect([help.status, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(/^Usage: npm run -s cli/);
  }, 60_000);

  it('connect, import and sync as separate processes: each exits 0, and the parcels reach the service with their heights', async () => {
    const own = join(dir, 'spawned-home');
    const acc = await newAccount('spawned@example.com');
    expect(spawnCli(['connect', '--service', svc.url, '--api-key', apiKey, '--account', acc], own)).toMatchObject({ status: 0 });
    // A PolygonZ shapefile written by GDAL: the z of every position goes through the mirror to the service.
    const file = join(dir, 'terrazas.zip');
    writeFileSync(file, committedGdalFixture('polygonz.zip'));
    const imported = spawnCli(['import', file, '--farm', 'Spawned'], own);
    expect([imported.status, imported.stdout]).toEqual([0, "Imported 2 parcel(s) into 'Spawned'.\n"]);
    const synced = spawnCli(['sync'], own);
    expect(synced.status, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(new RegExp(`^${acc}: 3 changes acknowledged by the service, 2 parcels pulled`, 'm'));
    const [farm] = await onService(apiKey, acc);
    expect(farm).toMatchObject({ name: 'Spawned', parcel_count: 2 });
    const listing = (await (await fetch(`${svc.url}/api/farms/${farm!.id}/parcels/`, { headers: { 'x-api-key': apiKey, 'service-account': acc } })).json()) as
      { features: { geometry: { coordinates: number[][][] } }[] };
    expect(listing.features.flatMap((f) => f.geometry.coordinates[0]!.map((p) => p[2]))).toEqual(expect.arrayContaining([812.5, 815.5, 790.25, 793.25]));
  }, 90_000);

  it('the built CLI imports a file large enough for the import worker threads (dist/worker.mjs), and pushes it', async () => {
    const own = join(dir, 'built-home');
    const acc = await newAccount('built@example.com');
    expect(spawnCli(['connect', '--service', svc.url, '--api-key', apiKey, '--account', acc], own)).toMatchObject({ status: 0 });
    // 6,000 parcels of 200 vertices: about 5 MiB, past the size from which an import starts its worker threads.
    const ring = (x: number, y: number) => Array.from({ length: 200 }, (_, k) => {
      const a = (2 * Math.PI * k) / 200;
      return [x + 0.001 * Math.cos(a), y + 0.001 * Math.sin(a)];
    });
    const file = geojson('large.geojson', Array.from({ length: 6000 }, (_, i) => {
      const r = ring(-6 + (i % 100) * 0.003, 37 + Math.floor(i / 100) * 0.003);
      return { name: `Olivar ${i}`, coords: [[...r, r[0]!]] };
    }));
    const imported = spawnCli(['import', file, '--farm', 'Built'], own);
    expect([imported.status, imported.stdout]).toEqual([0, "Imported 6000 parcel(s) into 'Built'.\n"]);
    const pushed = spawnCli(['push'], own);
    expect(pushed.status, pushed.stderr).toBe(0);
    // A push ends the process as soon as it has returned (endProcess): its summary written, every op settled on
    // disk and the mirror closed (its WAL checkpointed and removed) before that.
    expect(pushed.stdout).toMatch(new RegExp(`^${acc}: .*changes acknowledged by the service`, 'm'));
    expect(existsSync(join(own, 'mirror.db-wal'))).toBe(false);
    const db = new Database(join(own, 'mirror.db'), { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) FROM outbox WHERE state <> 'committed'").pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM parcels WHERE server_id IS NOT NULL').pluck().get()).toBe(6000);
    } finally {
      db.close();
    }
    expect((await onService(apiKey, acc))[0]).toMatchObject({ name: 'Built', parcel_count: 6000 });
  }, 120_000);
});

describe('the CLI in-process', () => {
  it('connect refuses bad credentials (exit 1) and keeps nothing; good ones are saved, never printed', async () => {
    const bad = await cli(['connect', '--service', svc.url, '--api-key', 'fk_nope_nope', '--account', account]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/Invalid API key/);
    expect(JSON.parse((await cli(['accounts'])).stdout)).toEqual([]);
    const good = await cli(['connect', '--service', svc.url, '--api-key', apiKey, '--account', account]);
    expect(good.status).toBe(0);
    expect(good.stdout).not.toContain(apiKey);
    expect(JSON.parse((await cli(['accounts'])).stdout)).toMatchObject([{ id: account, method: 'api_key', blocked: null }]);
    expect((await cli(['accounts'])).stdout + (await cli(['status'])).stdout).not.toContain(apiKey);
  });

  it('import: an invalid feature aborts the whole file naming it and the flag that imports the rest; --skip-invalid does', async () => {
    const file = geojson('fields.geojson', [
      { name: 'North', coords: square(-4, 37, 120), props: { 'Supplier ID': 'S-12' } },
      { name: 'Trial', point: [-4.01, 37.01], hectares: 2.5 },
      { name: 'No hectares', point: [-4.02, 37.02] },
    ]);
    const refused = await cli(['import', file, '--farm', 'Cortijo']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`  Feature 2 'No hectares': a point becomes a parcel only with its area: give it a "hectares" property`);
    expect(refused.stderr).not.toMatch(/geom\.properties/);
    expect(refused.stderr).toContain('To import only the 2 valid feature(s), run the same command again with --skip-invalid.');
    expect(JSON.parse((await cli(['farms'])).stdout)).toEqual([]);
    const partial = await cli(['import', file, '--farm', 'Cortijo', '--skip-invalid']);
    expect(partial.status).toBe(0);
    expect(partial.stdout).toMatch(/Imported 2 parcel\(s\) into 'Cortijo'/);
    expect(partial.stdout).toContain("  skipped Feature 2 'No hectares': ");
    expect(await statusJson()).toMatchObject({ pending: 3, synced: 0 });
  });

  it('import says what was not kept: the height of points', async () => {
    const file = join(dir, 'pozos.zip');
    writeFileSync(file, committedGdalFixture('pointz.zip'));
    const r = await cli(['import', file, '--farm', 'Pozos']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("Imported 2 parcel(s) into 'Pozos'.\n  note: the height (z) of 1 point(s) is not kept: a point parcel is the square of its hectares on the ground (polygons keep theirs)\n");
    // The farm the import made goes with it: one undo.
    expect((await cli(['undo'])).stdout).toMatch(/^Undid: Import pozos\.zip/);
  });

  it('sync exits 0 when everything is synced, counting what the service acknowledged; status then exits 0', async () => {
    // The script's hook (scripts/cli.mjs passes syncFlags, V8 flags that must come before the first request
    // and after Node's modules are loaded): called once, before any request.
    const requests: unknown[] = [];
    const onRequest = (m: unknown) => requests.push(m);
    const seen: number[] = [];
    subscribe('undici:request:create', onRequest);
    let r: Run;
    try {
      r = await cli(['sync'], {}, { beforeRequests: () => seen.push(requests.length) });
    } finally {
      unsubscribe('undici:request:create', onRequest);
    }
    expect(seen).toEqual([0]);
    expect(requests.length).toBeGreaterThan(0);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${account}: 3 changes acknowledged by the service, 2 parcels pulled \\((listed in full|changes since the last pull), \\d+ (B|KB) on the wire\\)$`, 'm'));
    const status = await cli(['status', '--json']);
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({ pending: 0, in_flight: 0, uncertain: 0, synced: 3, rejected: 0, conflicts: 0, blocked: 0, blocked_accounts: [] });
    expect(await onService(apiKey, account)).toMatchObject([{ name: 'Cortijo', parcel_count: 2 }]);
  });

  it('every number is checked: a bad one is a usage error (exit 2) and changes nothing', async () => {
    expect((await cli(['set-parcel-limit', '--hectares', '40'])).status).toBe(0);
    for (const bad of ['NaN', 'abc', '-1', '0', 'Infinity', '1e400', '']) {
      const r = await cli(['set-parcel-limit', `--hectares=${bad}`]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr, bad).toMatch(bad === '' ? /--hectares is required/ : /--hectares must be a number of hectares above 0/);
      expect(r.stderr).toMatch(/Usage: npm run -s cli/);
    }
    expect((await cli(['set-parcel-limit', '--hectares', 'default'])).stdout).toMatch(/: 100 ha \(the default\)/);
    const before = await statusJson();
    for (const [name, value] of [['FURROW_SETTLE_MS', 'abc'], ['FURROW_MAX_WAIT_MS', '-5'], ['FURROW_HTTP_TIMEOUT_MS', '0'], ['FURROW_SETTLE_MS', '1.5'], ['FURROW_MAX_WAIT_MS', '999999999999']] as const) {
      const r = await cli(['sync'], { [name]: value });
      expect(r.status, `${name}=${value}`).toBe(2);
      expect(r.stderr).toContain(`${name} (milliseconds) must be a whole number`);
    }
    for (const value of ['1000', 'big', '4294967296']) {
      const r = await cli(['sync'], { FURROW_MAX_ANSWER_BYTES: value });
      expect(r.status, value).toBe(2);
      expect(r.stderr).toContain('FURROW_MAX_ANSWER_BYTES (bytes) must be a whole number from 1048576 to 2147483648');
    }
    expect(await statusJson()).toEqual(before);
    for (const args of [['resolve', 'abc', '--keep', 'mine'], ['resolve', '0', '--keep', 'mine'], ['status', '--frobnicate'], ['import', 'a.geojson', 'b.geojson', '--farm', 'F'], ['frobnicate']]) {
      const r = await cli(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/Usage: npm run -s cli/);
    }
    expect((await cli(['resolve', 'abc', '--keep', 'mine'])).stderr).toMatch(/^The conflict ID must be a whole number/);
    expect((await cli(['frobnicate'])).stderr).toMatch(/^Unknown command 'frobnicate'/);
  });

  it('sync exits 1 while the service cannot be reached, says so plainly, counts nothing as sent, and loses nothing', async () => {
    const file = geojson('offline.geojson', [{ name: 'Offline edit', coords: square(-4.3, 37, 100) }]);
    expect((await cli(['import', file, '--farm', 'Cortijo'])).status).toBe(0);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const mirror = new Database(join(home(), 'mirror.db'));
    try {
      mirror.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(closed, account);
      const r = await cli(['sync'], { FURROW_MAX_WAIT_MS: '1000' });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^${account}: could not reach ${closed}: connection refused \\(\\d attempts?( over \\d+ s)?\\)\\. 0 changes acknowledged by the service\\. ` +
        '1 change still waiting, none lost\\. Pull not done\\. Run sync again once the service can be reached\\.$', 'm'));
      expect(r.stdout).toBe('');
      // Refused connections sent nothing: the parcel is plainly pending, not uncertain, and nothing is blocked.
      expect(await statusJson()).toMatchObject({ pending: 1, uncertain: 0, in_flight: 0, synced: 3, blocked_accounts: [] });
    } finally {
      mirror.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(svc.url, account);
      mirror.close();
    }
    expect((await cli(['sync'])).status).toBe(0);
    expect(await statusJson()).toMatchObject({ pending: 0, synced: 4 });
  });

  it('sync exits 2 listing each item the service refused, and the rest still syncs', async () => {
    expect(serviceCli(join(dir, 'svc'), ['set-parcel-limit', '--account', account, '--hectares', '5']).status).toBe(0);
    const file = geojson('more.geojson', [
      { name: 'Small', coords: square(-4.1, 37, 100) },
      { name: 'Too big for the agreed 5 ha', coords: square(-4.2, 37, 300) },
    ]);
    expect((await cli(['import', file, '--farm', 'Cortijo'])).status).toBe(0);
    const r = await cli(['sync']);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/1 refused/);
    expect(r.stdout).toMatch(/rejected #\d+ parcel 'Too big for the agreed 5 ha': .*5 ha/);
    expect(await statusJson()).toMatchObject({ pending: 0, rejected: 1, synced: 5 });
    expect((await cli(['status'])).status).toBe(2);
    expect(JSON.parse((await cli(['problems', '--json'])).stdout)).toMatchObject([{ kind: 'rejected', entity: 'parcel', name: 'Too big for the agreed 5 ha' }]);
  });

  it('disconnect refuses (exit 2) while an account has unsynced work, then removes it and its credentials, the service keeping its data', async () => {
    const own = join(dir, 'disconnect-home');
    const acc = await newAccount('disconnect@example.com');
    const run = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const status = await runCli(args, { env: { FURROW_HOME: own, ...ENV }, stdout: { write: (x: string) => { stdout += x; } }, stderr: { write: (x: string) => { stderr += x; } } });
      return { status, stdout, stderr };
    };
    expect((await run(['connect', '--service', svc.url, '--api-key', apiKey, '--account', acc])).status).toBe(0);
    const file = geojson('leaving.geojson', [{ name: 'Leaving', coords: square(-5.5, 37.1) }]);
    expect((await run(['import', file, '--farm', 'Leaving farm'])).status).toBe(0);
    const refused = await run(['disconnect', '--account', acc]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/has 2 change\(s\) the service does not have \(2 queued\): sync them first, or remove the account and lose them with --discard-unsynced/);
    expect((await run(['sync'])).status).toBe(0);
    const done = await run(['disconnect', '--account', acc]);
    expect([done.status, done.stdout]).toEqual([0, `Disconnected ${acc}: removed 1 farm(s), 1 parcel(s), 0 crop(s) and 0 plant(s) from this computer; the service keeps its data.\n`]);
    expect(JSON.parse((await run(['accounts'])).stdout)).toEqual([]);
    expect(readFileSync(join(own, 'mirror.db')).includes(acc)).toBe(false);
    expect(() => readFileSync(join(own, 'credentials.json'))).toThrow(/ENOENT/);
    expect((await onService(apiKey, acc)).map((f) => f.name)).toEqual(['Leaving farm']);
    expect((await run(['disconnect', '--account', acc])).stderr).toMatch(new RegExp(`No account ${acc} in this mirror`));
  });

  it('export writes CSV with WKT, and undo/redo work from the command line', async () => {
    const out = join(dir, 'out.csv');
    expect((await cli(['export', out])).stdout).toMatch(/Exported \d+ parcel\(s\) as csv/);
    const csv = readFileSync(out, 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/^local_id,server_id,farm,name,hectares,wkt/);
    expect(csv).toMatch(/"POLYGON\(\(/);
    expect((await cli(['undo'])).stdout).toMatch(/^Undid: /);
    expect((await cli(['redo'])).stdout).toMatch(/^Redid: /);
  });

  it('after the organization key is rotated the account is blocked: exit 2 with the reason and the way out, until connected again', async () => {
    const file = geojson('after-rotation.geojson', [{ name: 'Queued while blocked', coords: square(-4.7, 37, 100) }]);
    expect((await cli(['import', file, '--farm', 'Cortijo'])).status).toBe(0);
    const newKey = await rotateApiKey(join(dir, 'svc'), org.organization_id, apiKey);

    const r = await cli(['sync']);
    expect(r.status).toBe(2);
    expect(r.stdout).toContain(`${account}: BLOCKED — Invalid API key. Way out: the organization's API key was revoked or rotated: ` +
      `connect again with the current key (npm run -s cli -- connect --service ${svc.url} --api-key NEW_KEY --account ${account}), then sync.`);
    expect(r.stdout).toContain('Pull not done: the account is blocked (Invalid API key).');

    // Nothing queued was dropped: every change waits, blocked (the new parcel and the undo/redo of the last test).
    const json = await cli(['status', '--json']);
    expect(json.status).toBe(2);
    const counts = JSON.parse(json.stdout) as { blocked: number };
    expect(counts).toMatchObject({
      pending: 0, uncertain: 0, blocked: expect.any(Number) as unknown,
      blocked_accounts: [{ account, service: svc.url, code: 'invalid_api_key', reason: 'Invalid API key', way_out: expect.stringContaining('--api-key NEW_KEY') as unknown, waiting: counts.blocked }],
    });
    expect(counts.blocked).toBeGreaterThanOrEqual(1);
    const status = await cli(['status']);
    expect(status.status).toBe(2);
    expect(status.stdout).toContain('blocked accounts: 1');
    expect(status.stdout).toContain(`account ${account} is blocked — Invalid API key. Way out: the organization's API key was revoked or rotated`);
    expect(status.stdout).toContain(`${counts.blocked} change(s) wait for it, none lost.`);
    const problems = await cli(['problems']);
    expect(problems.status).toBe(2);
    expect(problems.stdout).toMatch(new RegExp(`^account ${account} is blocked — Invalid API key: `, 'm'));
    expect(problems.stdout).toContain(`Invalid API key: the organization's API key was revoked or rotated: connect again with the current key (npm run -s cli -- connect --service ${svc.url} --api-key NEW_KEY --account ${account}), then sync`);
    expect(JSON.parse((await cli(['problems', '--json'])).stdout)).toContainEqual({
      kind: 'account_blocked', id: account, entity: 'account', name: account, reason: expect.stringMatching(/^Invalid API key: the organization's API key was revoked or rotated: .*--api-key NEW_KEY/) as unknown,
    });

    // The way out works, and what was queued goes out.
    expect((await cli(['connect', '--service', svc.url, '--api-key', newKey, '--account', account])).status).toBe(0);
    const again = await cli(['sync']);
    expect(again.status, again.stdout + again.stderr).toBe(2); // the refused 'Too big' parcel still needs the user
    expect(again.stdout).not.toContain('BLOCKED');
    expect(JSON.parse((await cli(['status', '--json'])).stdout)).toMatchObject({ pending: 0, blocked: 0, blocked_accounts: [] });
    expect((await onService(newKey, account))[0]!.parcel_count).toBe(5);
  });
});
