// `sync` against a service whose disk is full (a real service process, its data on a small tmpfs filled by a file):
// the service refuses with 507, the CLI takes that as a certain refusal — nothing uncertain, nothing reconciled,
// nothing lost — says that the service's disk is full, and sends everything once space is freed. Before, the CLI took
// the 500 it got for an uncertain outcome, spent its wait reconciling, and never said why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';
import { TEST_STORE } from '../test/helpers/store.ts';
import { runCli } from './main.ts';

let mnt: string;
let dir: string;
let svc: ServiceProcess;
let apiKey: string;
let account: string;
const home = () => join(dir, 'home');

async function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  // A short wait: the service asks for 60 s (Retry-After), so the run ends with the changes still waiting.
  const status = await runCli(args, {
    env: { FURROW_HOME: home(), FURROW_SETTLE_MS: '300', FURROW_MAX_WAIT_MS: '3000' },
    stdout: { write: (s: string) => { stdout += s; } },
    stderr: { write: (s: string) => { stderr += s; } },
  });
  return { status, stdout, stderr };
}

// Mounting takes root (CI has it); the PostgreSQL store's full disk is service/disk-full.test.ts's.
describe.runIf(process.getuid?.() === 0 && TEST_STORE === 'sqlite')('sync against a service whose disk is full', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-cli-full-'));
    mnt = join(dir, 'disk');
    execFileSync('mkdir', ['-p', mnt]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', mnt]);
    const org = serviceCli(join(mnt, 'svc'), ['create-org', '--name', 'Full disk']).json as { api_key: string };
    apiKey = org.api_key;
    svc = await spawnService(join(mnt, 'svc'));
    const res = await fetch(`${svc.url}/api/accounts/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: 'full@example.com' }) });
    account = ((await res.json()) as { id: string }).id;
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    if (mnt) execFileSync('umount', ['-l', mnt]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says the service is out of space, keeps every change queued (none uncertain), and sends them all once space is freed', async () => {
    const connected = await cli(['connect', '--service', svc.url, '--api-key', apiKey, '--account', account]);
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

    const s = statfsSync(mnt);
    try {
      writeFileSync(join(mnt, 'filler'), Buffer.alloc(Number(s.bavail) * Number(s.bsize)));
    } catch { /* whatever fitted: the disk is full */ }

    const full = await cli(['sync']);
    expect(full.status).toBe(1);
    const said = full.stdout + full.stderr;
    expect(said).toMatch(/41 changes still waiting, none lost \(.*disk is full.*\)/);
    const status = JSON.parse((await cli(['status', '--json'])).stdout) as Record<string, number>;
    expect(status).toMatchObject({ uncertain: 0, rejected: 0, conflicts: 0 });

    rmSync(join(mnt, 'filler'));
    const freed = await cli(['sync']);
    expect(freed.status, freed.stdout + freed.stderr).toBe(0);
    const farms = (await (await fetch(`${svc.url}/api/farms/`, { headers: { 'x-api-key': apiKey, 'service-account': account } })).json()) as { name: string; parcel_count: number }[];
    expect(farms).toEqual([expect.objectContaining({ name: 'Full', parcel_count: 40 })]);
  }, 120_000);
});
