// FURROW_HOME on a full disk (a small tmpfs filled by a file): commands that only read work (status, problems), one
// that must write (sync) fails naming the folder, what is free and what to free, nothing queued is lost, and once
// space is freed the same sync sends everything. Before, every command failed with "disk I/O error", status included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';
import { runCli } from './main.ts';

let dir: string;
let disk: string;
let svc: ServiceProcess;
let apiKey: string;
let account: string;
const home = () => join(disk, 'home');

async function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    env: { FURROW_HOME: home(), FURROW_SETTLE_MS: '300', FURROW_MAX_WAIT_MS: '3000' },
    stdout: { write: (s: string) => { stdout += s; } },
    stderr: { write: (s: string) => { stderr += s; } },
  });
  return { status, stdout, stderr };
}

const farmsOnService = async () => (await (await fetch(`${svc.url}/api/farms/`, { headers: { 'x-api-key': apiKey, 'service-account': account } })).json()) as { name: string; parcel_count: number }[];

// Mounting takes root (CI has it).
describe.runIf(process.getuid?.() === 0)("FURROW_HOME's disk full", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-home-full-'));
    const org = serviceCli(join(dir, 'svc'), ['create-org', '--name', 'Home full']).json as { api_key: string };
    apiKey = org.api_key;
    svc = await spawnService(join(dir, 'svc'));
    const res = await fetch(`${svc.url}/api/accounts/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: 'home@example.com' }) });
    account = ((await res.json()) as { id: string }).id;
    disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    if (disk) execFileSync('umount', ['-l', disk]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads still work, a sync says where the disk is full and what to free, nothing is lost, and it all goes once space is freed', async () => {
    expect((await cli(['connect', '--service', svc.url, '--api-key', apiKey, '--account', account])).status).toBe(0);
    const imported = await cli(['import', resolve(ROOT, 'examples/fields.geojson'), '--farm', 'Home full']);
    expect(imported.status, imported.stderr).toBe(0);

    const s = statfsSync(disk);
    try {
      writeFileSync(join(disk, 'filler'), Buffer.alloc(Number(s.bavail) * Number(s.bsize)));
    } catch { /* whatever fitted: the disk is full */ }

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
    expect(await farmsOnService()).toEqual([]);

    rmSync(join(disk, 'filler'));
    expect(JSON.parse((await cli(['status', '--json'])).stdout)).toMatchObject({ pending: 6, uncertain: 0, in_flight: 0 });
    const freed = await cli(['sync']);
    expect(freed.status, freed.stdout + freed.stderr).toBe(0);
    expect(await farmsOnService()).toEqual([expect.objectContaining({ name: 'Home full', parcel_count: 5 })]);
  }, 120_000);
});
