// `npm start` (service/cli.ts demo --serve): the demo's API key and admin password survive a restart, kept in a
// file only the owner can read; a key that no longer works, or a file others could read, gives new ones and the
// start says why; the line it prints makes the README's commands work as written.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEMO_ADMIN, runDemo, type DemoResult } from './demo.ts';
import { demoCredentialsPath } from './demo-credentials.ts';
import { configFromEnv, type ServiceConfig } from './config.ts';
import type { Store } from './store/store.ts';
import { login } from './store/admins.ts';
import { pageRows } from './store/parcel-list.ts';
import { dataDirEnv, openDataDirStore } from '../test/helpers/store.ts';
import { ROOT, freePort, spawnService, type ServiceProcess } from '../test/helpers/process.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'furrow-demo-'));
  dirs.push(d);
  return d;
};
const stores: Store[] = [];
const open = async (dir: string) => {
  const store = await openDataDirStore(dir);
  stores.push(store);
  return store;
};
let running: ServiceProcess | undefined;
afterAll(async () => {
  await running?.stop();
  for (const store of stores) await store.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// The directory's store as a service started on it would have (its DATABASE_URL on PostgreSQL).
const config = (dir: string): ServiceConfig => ({ ...configFromEnv(dataDirEnv(dir)), dataDir: dir, synchronous: 'NORMAL', validationWorkers: 0 });
const mode = (path: string) => statSync(path).mode & 0o777;
const saved = (dir: string) => JSON.parse(readFileSync(demoCredentialsPath(dir), 'utf8')) as Record<string, string>;
const adminLogin = async (store: Store, password: string) => (await login(store, { email: DEMO_ADMIN, password, ip: '192.0.2.1' })).ok;
const keyPrefix = (key: string) => /^(fk_[0-9a-f]{8})_/.exec(key)![1]!;

describe('demo credentials', () => {
  it('keeps the API key and the admin password across starts, in a file only the owner can read', async () => {
    const dir = tempDir();
    const first = await runDemo(config(dir));
    const { organization_id: org, api_key: key, admin_password: password } = first.credentials;
    expect(first.notices).toEqual([]);
    expect(mode(demoCredentialsPath(dir))).toBe(0o600);
    expect(saved(dir)).toMatchObject({ organization_id: org, api_key: key, admin_email: DEMO_ADMIN, admin_password: password });

    const second = await runDemo(config(dir));
    expect(second.notices).toEqual([]);
    expect(second.credentials).toMatchObject({ organization_id: org, api_key: key, admin_password: password, account_id: first.credentials.account_id, embedded_url: first.credentials.embedded_url });
    expect(mode(demoCredentialsPath(dir))).toBe(0o600);
    const store = await open(dir);
    expect((await store.apiKeys.findActive(key))?.organization_id).toBe(org);
    expect(await adminLogin(store, password)).toBe(true);
    // The demo's farms are loaded once.
    const scope = { organizationId: org, accountId: second.credentials.account_id, via: 'api_key' } as const;
    expect((await store.farms.list(scope)).map((f) => f.name).sort())
      .toEqual(['Almendral La Vega', 'Finca El Olivar', 'Hof Sonnenfeld']);
    // Each parcel's crop_type metadata names its current (active) crop.
    const current = await store.crops.currentByParcel(scope);
    const crops = (await pageRows(await store.parcels.list(scope, { limit: 1000 })))
      .filter((p) => current.has(p.id))
      .map((p) => ({ name: p.name, crop_type: (JSON.parse(p.metadata) as { crop_type: string }).crop_type, active: current.get(p.id)!.name }));
    expect(crops).toHaveLength(25);
    expect(crops.filter((c) => c.crop_type !== c.active)).toEqual([]);
    // Each start says whether it created the demo or kept it (a kept start must not read as a reset).
    expect(first.banner).toContain(`Demo data created in ${dir}.`);
    expect(second.banner).toContain(`Demo data kept from an earlier start, with your changes (in ${dir}; remove that folder to start afresh).`);
    expect(second.banner).not.toMatch(/Demo data (created|is loaded)/);
    // Shown again on every start, with the line the README's commands read.
    expect(second.banner).toContain(`x-api-key     ${key}`);
    expect(second.banner).toContain(`(${DEMO_ADMIN} / ${password})`);
    expect(second.banner.split('\n')).toContain(
      `export FURROW_URL=${second.credentials.service} KEY=${key} ACCOUNT=${second.credentials.account_id} TOKEN=${second.credentials.account_access}`,
    );
  });

  it('issues new credentials and says why: key revoked, file deleted, file readable by others, admin changed, file damaged', async () => {
    const dir = tempDir();
    const file = demoCredentialsPath(dir);
    const store = await open(dir);
    let last: DemoResult = await runDemo(config(dir));
    const org = last.credentials.organization_id;
    const restart = async (): Promise<DemoResult> => {
      const before = last.credentials;
      last = await runDemo(config(dir));
      expect(last.credentials.organization_id).toBe(org);
      expect((await store.apiKeys.findActive(last.credentials.api_key))?.organization_id).toBe(org);
      expect(await adminLogin(store, last.credentials.admin_password)).toBe(true);
      expect(saved(dir)).toMatchObject({ api_key: last.credentials.api_key, admin_password: last.credentials.admin_password });
      expect(mode(file)).toBe(0o600);
      return { ...last, credentials: { ...last.credentials, api_key: last.credentials.api_key === before.api_key ? 'same' : last.credentials.api_key } };
    };

    // Revoked (admin panel or CLI): a new key; the password still works, so it stays.
    const revokedKey = last.credentials.api_key;
    const password = last.credentials.admin_password;
    await store.apiKeys.revoke(org, keyPrefix(revokedKey));
    let r = await restart();
    expect(r.notices).toEqual([expect.stringMatching(/^The saved demo API key was revoked \(.* UTC\): a new one is issued/)]);
    expect(r.credentials.api_key).not.toBe('same');
    expect(r.credentials.admin_password).toBe(password);
    expect(r.banner.split('\n')[0]).toBe(`! ${r.notices[0]}`);

    // Deleted: new ones; the key issued before is not revoked (whoever holds it keeps working).
    const beforeDelete = last.credentials.api_key;
    unlinkSync(file);
    r = await restart();
    expect(r.notices).toEqual([expect.stringContaining(`No saved demo credentials (${file})`)]);
    expect(r.credentials.api_key).not.toBe('same');
    expect((await store.apiKeys.findActive(beforeDelete))?.organization_id).toBe(org);

    // Readable by others: its key is revoked, and both secrets are replaced.
    const exposed = last.credentials;
    chmodSync(file, 0o644);
    r = await restart();
    expect(r.notices).toEqual([expect.stringContaining(`${file} was readable by other users (mode 0644): its API key is revoked`)]);
    expect((await store.apiKeys.findActive(exposed.api_key))?.organization_id).toBeUndefined();
    // The old key could have fetched the embedded map's link: it is rotated too.
    expect(r.credentials.embedded_url).not.toBe(exposed.embedded_url);
    expect(r.credentials.admin_password).not.toBe(exposed.admin_password);
    expect(await adminLogin(store, exposed.admin_password)).toBe(false);

    // The demo admin removed in the admin panel: created again with a new password; the key stays.
    await store.admins.delete(org, DEMO_ADMIN);
    r = await restart();
    expect(r.notices).toEqual([expect.stringMatching(/password of admin@demo\.furrow\.example no longer opens the admin panel/)]);
    expect(r.credentials.api_key).toBe('same');

    // Damaged: new ones, and the file is written again.
    writeFileSync(file, '{"api_key": ', { mode: 0o600 });
    r = await restart();
    expect(r.notices).toEqual([expect.stringContaining(`${file} could not be used`)]);

    // And a normal restart after all that reuses them again.
    r = await restart();
    expect(r.notices).toEqual([]);
    expect(r.credentials.api_key).toBe('same');
  });
});

/** Lines of the README's shell blocks that start with `prefix`. */
function readmeLines(prefix: string): string[] {
  const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).filter((l) => l.startsWith(prefix));
}

describe('npm start, twice', { timeout: 180_000 }, () => {
  it("prints a line that makes the README's commands work, and a mirror connected with the CLI still syncs after a restart", async () => {
    const dir = tempDir();
    const home = join(dir, 'furrow-home');
    const env = { PORT: String(await freePort()) };
    const start = async () => {
      running = await spawnService(join(dir, 'service'), env, ['demo', '--serve']);
      const line = running.stderr().split('\n').find((l) => l.startsWith('export FURROW_URL='));
      expect(line, running.stderr()).toBeDefined();
      return line!;
    };
    const sh = (pasted: string, command: string) => {
      const r = spawnSync('bash', ['-c', `set -e\n${pasted}\n${command}`], {
        cwd: ROOT, encoding: 'utf8', timeout: 90_000, env: { ...process.env, FURROW_HOME: home, FURROW_SETTLE_MS: '300' },
      });
      expect(r.status, `${command}\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };

    const pasted = await start();
    const vars = Object.fromEntries(pasted.slice('export '.length).split(' ').map((kv) => kv.split(/=(.*)/s).slice(0, 2) as [string, string]));
    expect(Object.keys(vars)).toEqual(['FURROW_URL', 'KEY', 'ACCOUNT', 'TOKEN']);
    expect(vars.FURROW_URL).toBe(running!.url);

    const curls = readmeLines('curl ');
    expect(curls).toHaveLength(3);
    const farms = JSON.parse(sh(pasted, curls[0]!)) as { name: string }[];
    expect(farms.map((f) => f.name).sort()).toEqual(['Almendral La Vega', 'Finca El Olivar', 'Hof Sonnenfeld']);
    const s12 = JSON.parse(sh(pasted, curls[1]!)) as { features: { properties: { metadata: Record<string, unknown> } }[] };
    expect(s12.features.length).toBeGreaterThan(0);
    expect(new Set(s12.features.map((f) => f.properties.metadata['Supplier ID']))).toEqual(new Set(['S-12']));
    expect((JSON.parse(sh(pasted, curls[2]!)) as { openapi: string }).openapi).toBe('3.0.3');

    // connect, import examples/fields.geojson, export it in EPSG:25830, sync, status: as the README writes them.
    // (The position commands need a receiver: cli/position.test.ts runs them as the README writes them.)
    const cli = readmeLines('npm run -s cli -- ').filter((l) => !l.startsWith('npm run -s cli -- position '));
    expect(cli.map((l) => l.split(/\s+/)[5])).toEqual(['connect', 'import', 'export', 'sync', 'status']);
    // Written into a folder of this test's (both stores' projects run this test at once), under the README's name.
    const named = cli[2]!.split(/\s+/)[6]!;
    const exported = join(mkdtempSync(join(tmpdir(), 'furrow-readme-export-')), named);
    try {
      const outputs = cli.map((line) => sh(pasted, line === cli[2] ? line.replace(` ${named} `, ` ${JSON.stringify(exported)} `) : line));
      expect(JSON.parse(outputs[4]!)).toMatchObject({ pending: 0, uncertain: 0, rejected: 0, conflicts: 0, blocked: 0 });
      // The export in the grid the README asks for, naming it as ogr2ogr does.
      expect(JSON.parse(readFileSync(exported, 'utf8'))).toMatchObject({ crs: { properties: { name: 'urn:ogc:def:crs:EPSG::25830' } } });
    } finally {
      rmSync(resolve(exported, '..'), { recursive: true, force: true });
    }

    await running!.stop();
    const again = await start();
    expect(again.replace(/ TOKEN=\S+$/, '')).toBe(pasted.replace(/ TOKEN=\S+$/, ''));
    expect(running!.stderr()).not.toMatch(/^! /m);

    // The mirror still holds the key it was connected with: a new edit syncs (exit 0: everything synced).
    sh(pasted, 'npm run -s cli -- import examples/fields.kml --farm "Cortijo KML"');
    sh(pasted, 'npm run -s cli -- sync');
    const after = JSON.parse(sh(again, curls[0]!)) as { name: string }[];
    expect(after.map((f) => f.name).sort()).toEqual(['Almendral La Vega', 'Cortijo KML', 'Cortijo La Campana', 'Finca El Olivar', 'Hof Sonnenfeld']);
  });
});
