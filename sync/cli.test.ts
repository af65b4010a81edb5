// The headless CLI's contract, as a script would use it: real processes, a real service on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ROOT, freePort, serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';
import { square } from '../test/helpers/service.ts';

const TSX = resolve(ROOT, 'node_modules/.bin/tsx');
let dir: string;
let svc: ServiceProcess;
let apiKey: string;
let account: string;
const home = () => join(dir, 'home');

function cli(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(TSX, ['sync/cli.ts', ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, FURROW_HOME: home(), FURROW_SETTLE_MS: '300', FURROW_MAX_WAIT_MS: '20000' },
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const statusJson = () => JSON.parse(cli('status', '--json').stdout) as Record<string, number>;

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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-cli-'));
  const org = serviceCli(join(dir, 'svc'), ['create-org', '--name', 'CLI test']).json as { api_key: string };
  apiKey = org.api_key;
  svc = await spawnService(join(dir, 'svc'));
  const res = await fetch(`${svc.url}/api/accounts/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: 'cli@example.com' }) });
  account = ((await res.json()) as { id: string }).id;
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run -s cli', () => {
  it('connect refuses bad credentials (exit 1) and keeps nothing; good ones are saved, never printed', () => {
    const bad = cli('connect', '--service', svc.url, '--api-key', 'fk_nope_nope', '--account', account);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/Invalid API key/);
    expect(JSON.parse(cli('accounts').stdout)).toEqual([]);
    const good = cli('connect', '--service', svc.url, '--api-key', apiKey, '--account', account);
    expect(good.status).toBe(0);
    expect(good.stdout).not.toContain(apiKey);
    expect(JSON.parse(cli('accounts').stdout)).toMatchObject([{ id: account, method: 'api_key', blocked: null }]);
    expect(cli('accounts').stdout + cli('status').stdout).not.toContain(apiKey);
  }, 60_000);

  it('import: an invalid feature aborts the whole file naming it; --skip-invalid imports the rest and lists it', () => {
    const file = geojson('fields.geojson', [
      { name: 'North', coords: square(-4, 37, 120), props: { 'Supplier ID': 'S-12' } },
      { name: 'Trial', point: [-4.01, 37.01], hectares: 2.5 },
      { name: 'No hectares', point: [-4.02, 37.02] },
    ]);
    const refused = cli('import', file, '--farm', 'Cortijo');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/feature 2/);
    expect(refused.stderr).toMatch(/hectares/);
    expect(JSON.parse(cli('farms').stdout)).toEqual([]);
    const partial = cli('import', file, '--farm', 'Cortijo', '--skip-invalid');
    expect(partial.status).toBe(0);
    expect(partial.stdout).toMatch(/Imported 2 parcel\(s\) into 'Cortijo'/);
    expect(partial.stdout).toMatch(/skipped feature 2/);
    expect(statusJson()).toMatchObject({ pending: 3, synced: 0 });
  }, 60_000);

  it('sync exits 0 when everything is synced; status --json then counts it all as synced', async () => {
    const r = cli('sync');
    expect(r.status).toBe(0);
    expect(statusJson()).toEqual({ pending: 0, in_flight: 0, uncertain: 0, synced: 3, rejected: 0, conflicts: 0, blocked: 0 });
    const farms = (await (await fetch(`${svc.url}/api/farms/`, { headers: { 'x-api-key': apiKey, 'service-account': account } })).json()) as { name: string; parcel_count: number }[];
    expect(farms).toMatchObject([{ name: 'Cortijo', parcel_count: 2 }]);
  }, 60_000);

  it('sync exits 1 while the service cannot be reached, and nothing is lost', async () => {
    const file = geojson('offline.geojson', [{ name: 'Offline edit', coords: square(-4.3, 37, 100) }]);
    expect(cli('import', file, '--farm', 'Cortijo').status).toBe(0);
    const closed = await freePort();
    const mirror = new Database(join(home(), 'mirror.db'));
    mirror.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(`http://127.0.0.1:${closed}`, account);
    const r = spawnSync(TSX, ['sync/cli.ts', 'sync'], {
      cwd: ROOT, encoding: 'utf8', env: { ...process.env, FURROW_HOME: home(), FURROW_MAX_WAIT_MS: '1500', FURROW_SETTLE_MS: '300' },
    });
    expect(r.status).toBe(1);
    expect(statusJson()).toMatchObject({ pending: 1, uncertain: 0, synced: 3 });
    mirror.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(svc.url, account);
    mirror.close();
    expect(cli('sync').status).toBe(0);
    expect(statusJson()).toMatchObject({ pending: 0, synced: 4 });
  }, 60_000);

  it('sync exits 2 listing each item the service refused, and the rest still syncs', () => {
    expect(serviceCli(join(dir, 'svc'), ['set-parcel-limit', '--account', account, '--hectares', '5']).status).toBe(0);
    const file = geojson('more.geojson', [
      { name: 'Small', coords: square(-4.1, 37, 100) },
      { name: 'Too big for the agreed 5 ha', coords: square(-4.2, 37, 300) },
    ]);
    expect(cli('import', file, '--farm', 'Cortijo').status).toBe(0);
    const r = cli('sync');
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/rejected #\d+ parcel 'Too big for the agreed 5 ha': .*5 ha/);
    expect(statusJson()).toMatchObject({ pending: 0, rejected: 1, synced: 5 });
    expect(JSON.parse(cli('problems', '--json').stdout)).toMatchObject([{ kind: 'rejected', entity: 'parcel', name: 'Too big for the agreed 5 ha' }]);
  }, 60_000);

  it('export writes CSV with WKT, and undo/redo work from the command line', () => {
    const out = join(dir, 'out.csv');
    expect(cli('export', out).stdout).toMatch(/Exported \d+ parcel\(s\) as csv/);
    const csv = readFileSync(out, 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/^local_id,server_id,farm,name,hectares,wkt/);
    expect(csv).toMatch(/"POLYGON\(\(/);
    expect(cli('undo').stdout).toMatch(/^Undid: /);
    expect(cli('redo').stdout).toMatch(/^Redid: /);
  }, 60_000);

  it('bad usage exits 2 with the usage text', () => {
    const r = cli('frobnicate');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Unknown command 'frobnicate'/);
    expect(r.stderr).toMatch(/Usage: npm run -s cli/);
  });
});
