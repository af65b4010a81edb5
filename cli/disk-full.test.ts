// `sync` and the other commands when a disk fills up (real processes, the disk a small tmpfs filled by a file), on
// either side.
// - The service's: it refuses with 507, the CLI takes that as a certain refusal — nothing uncertain, nothing
//   reconciled, nothing lost — says that the service's disk is full, and sends everything once space is freed.
//   Before, the CLI took the 500 it got for an uncertain outcome, spent its wait reconciling, and never said why.
// - FURROW_HOME's: commands that only read work (status, problems), one that must write (sync) fails naming the
//   folder, what is free and what to free, nothing queued is lost, and once space is freed the same sync sends
//   everything. Before, every command failed with "disk I/O error", status included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';
import { TEST_STORE } from '../test/helpers/store.ts';
import { runCli } from './main.ts';

/** The CLI in this process on `home`. A short wait: a refusal asks for 60 s (Retry-After), so a run ends with its changes still waiting. */
async function cliOn(home: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    env: { FURROW_HOME: home, FURROW_SETTLE_MS: '300', FURROW_MAX_WAIT_MS: '3000' },
    stdout: { write: (s: string) => { stdout += s; } },
    stderr: { write: (s: string) => { stderr += s; } },
  });
  return { status, stdout, stderr };
}

/** Fills what is left of the disk under `dir`; returns the filler's path. */
function fill(dir: string): string {
  const file = join(dir, 'filler');
  const s = statfsSync(dir);
  try {
    writeFileSync(file, Buffer.alloc(Number(s.bavail) * Number(s.bsize)));
  } catch { /* whatever fitted: the disk is full */ }
  return file;
}

/** A service process with an organization and one account; its data in `dataDir`. */
async function serviceWithAccount(dataDir: string): Promise<{ svc: ServiceProcess; apiKey: string; account: string }> {
  const org = serviceCli(dataDir, ['create-org', '--name', 'Full disk']).json as { api_key: string };
  const svc = await spawnService(dataDir);
  const res = await fetch(`${svc.url}/api/accounts/`, { method: 'POST', headers: { 'x-api-key': org.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: 'full@example.com' }) });
  return { svc, apiKey: org.api_key, account: ((await res.json()) as { id: string }).id };
}

const farmsOn = async (s: { svc: ServiceProcess; apiKey: string; account: string }) =>
  (await (await fetch(`${s.svc.url}/api/farms/`, { headers: { 'x-api-key': s.apiKey, 'service-account': s.account } })).json()) as { name: string; parcel_count: number }[];

const root = process.getuid?.() === 0;

// Mounting takes root (CI has it); the PostgreSQL store's full disk is service/disk-full.test.ts's.
describe.runIf(root && TEST_STORE === 'sqlite')('sync against a service whose disk is full', () => {
  let dir: string;
  let mnt: string;
  let s: Awaited<ReturnType<typeof serviceWithAccount>>;
  const cli = (args: string[]) => cliOn(join(dir, 'home'), args);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-cli-full-'));
    mnt = join(dir, 'disk');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', mnt]);
    s = await serviceWithAccount(join(mnt, 'svc'));
  }, 60_000);
  afterAll(async () => {
    await s?.svc.stop();
    if (mnt) execFileSync('umount', ['-l', mnt]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says the service is out of space, keeps every change queued (none uncertain), and sends them all once space is freed', async () => {
    const connected = await cli(['connect', '--service', s.svc.url, '--api-key', s.apiKey, '--account', s.account]);
    expect(connected.status, connected.stdout + connected.stderr).toBe(0);
    // 40 parcels of 1,000 positions (about 1.6 MB): more than any space the service's database can reuse.
    const features = Array.from({ length: 40 }, (_, i) => {
      const ring = Array.from({ length: 1000 }, (_, k) => [-4.7 + i * 0.01 + 0.002 * Math.cos((2 * Math.PI * k) / 1000), 37.8 + 0.002 * Math.sin((2 * Math.PI * k) / 1000)]);
      return { type: 'Feature', properties: { name: `Full ${i}` }, geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] } };
    });
    const file = join(dir, 'full.geojson');
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
    const imported = await cli(['import', file, '--farm', 'Full']);
    expect(imported.status, imported.stdout + imported.stderr).toBe(0);

    const filler = fill(mnt);
    const full = await cli(['sync']);
    expect(full.status).toBe(1);
    expect(full.stdout + full.stderr).toMatch(/41 changes still waiting, none lost \(.*disk is full.*\)/);
    expect(JSON.parse((await cli(['status', '--json'])).stdout)).toMatchObject({ uncertain: 0, rejected: 0, conflicts: 0 });

    rmSync(filler);
    const freed = await cli(['sync']);
    expect(freed.status, freed.stdout + freed.stderr).toBe(0);
    expect(await farmsOn(s)).toEqual([expect.objectContaining({ name: 'Full', parcel_count: 40 })]);
  }, 120_000);
});

describe.runIf(root)("FURROW_HOME's disk full", () => {
  let dir: string;
  let disk: string;
  let s: Awaited<ReturnType<typeof serviceWithAccount>>;
  const home = () => join(disk, 'home');
  const cli = (args: string[]) => cliOn(home(), args);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-home-full-'));
    s = await serviceWithAccount(join(dir, 'svc'));
    disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
  }, 60_000);
  afterAll(async () => {
    await s?.svc.stop();
    if (disk) execFileSync('umount', ['-l', disk]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads still work, a sync says where the disk is full and what to free, nothing is lost, and it all goes once space is freed', async () => {
    expect((await cli(['connect', '--service', s.svc.url, '--api-key', s.apiKey, '--account', s.account])).status).toBe(0);
    const imported = await cli(['import', resolve(ROOT, 'examples/fields.geojson'), '--farm', 'Home full']);
    expect(imported.status, imported.stderr).toBe(0);

    const filler = fill(disk);
    const status = await cli(['status', '--json']);
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ pending: 6, uncertain: 0 });
    const problems = await cli(['problems']);
    expect([problems.status, problems.stdout]).toEqual([0, 'Nothing needs you.\n']);

    const full = await cli(['sync']);
    expect(full.status).toBe(1);
    expect(full.stderr).toContain(`FURROW_HOME (${home()}) is on a full disk (`);
    expect(full.stderr).toContain('Free at least 64 MB on that disk, then run the command again; nothing queued was lost.');
    expect(full.stderr).not.toMatch(/disk I\/O error/);
    expect(await farmsOn(s)).toEqual([]);

    rmSync(filler);
    expect(JSON.parse((await cli(['status', '--json'])).stdout)).toMatchObject({ pending: 6, uncertain: 0, in_flight: 0 });
    const freed = await cli(['sync']);
    expect(freed.status, freed.stdout + freed.stderr).toBe(0);
    expect(await farmsOn(s)).toEqual([expect.objectContaining({ name: 'Home full', parcel_count: 5 })]);
  }, 120_000);
});
