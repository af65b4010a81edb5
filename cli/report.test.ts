// What the CLI says while it works and when it is done, as a demanding user reads it: progress that names what is
// really going on (a wait and its reason, parcels checked rather than imported), a service that is down reported in
// seconds with the way forward, and a pull cut off partway reported as exactly that. In-process runCli against the
// real service on 127.0.0.1 (FAULTS=1), each test with its own FURROW_HOME.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { freePort } from '../test/helpers/process.ts';
import { square } from '../test/helpers/service.ts';
import { runCli } from './main.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); }, 60_000);
afterAll(async () => { await w?.close(); });

interface Run { status: number; stdout: string; stderr: string }

/** A CLI user of its own: a FURROW_HOME connected to a new account of the service. */
async function user(name: string): Promise<{ acc: string; cli: (args: string[], env?: Record<string, string>) => Promise<Run>; home: string }> {
  const home = join(w.dir, `home-${name}`);
  mkdirSync(home, { recursive: true });
  const res = await w.api('POST', '/api/accounts/', { account_email: `${name}@example.com` });
  const acc = res.body.id as string;
  const cli = async (args: string[], env: Record<string, string> = {}): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const status = await runCli(args, {
      env: { FURROW_HOME: home, FURROW_SETTLE_MS: '300', ...env },
      stdout: { write: (s: string) => { stdout += s; } },
      stderr: { write: (s: string) => { stderr += s; } },
    });
    return { status, stdout, stderr };
  };
  expect((await cli(['connect', '--service', w.svc.url, '--api-key', w.apiKey, '--account', acc])).status).toBe(0);
  return { acc, cli, home };
}

function geojson(file: string, features: { name: string; lon: number; hectares?: boolean }[]): string {
  const path = join(w.dir, file);
  writeFileSync(path, JSON.stringify({
    type: 'FeatureCollection',
    features: features.map((f) => ({
      type: 'Feature', properties: { name: f.name, ...(f.hectares === false ? {} : { hectares: 1 }) }, geometry: { type: 'Point', coordinates: [f.lon, 37] },
    })),
  }));
  return path;
}

describe('the CLI says what it is really doing', () => {
  it('sync while the service is down: a few quick tries, each wait named as such, then one plain line with the way forward', async () => {
    const u = await user('offline');
    const file = join(w.dir, 'offline.geojson');
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'Edit' }, geometry: { type: 'Polygon', coordinates: square(-4.3, 37, 100) } }] }));
    expect((await u.cli(['import', file, '--farm', 'Offline'])).status).toBe(0);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const mirror = new Database(join(u.home, 'mirror.db'));
    try {
      mirror.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(closed, u.acc);
    } finally {
      mirror.close();
    }
    // The default FURROW_MAX_WAIT_MS (120 s): refused connections end the run after 4 tries, not after two minutes.
    const r = await u.cli(['sync'], {});
    expect(r.status).toBe(1);
    const waits = r.stderr.split('\n').filter((l) => / waiting /.test(l));
    expect(waits.map((l) => l.replace(/retrying in \d+ s/, 'retrying in N s'))).toEqual([1, 2, 3].map((n) =>
      `${u.acc.slice(0, 12)} waiting 0 B sent — could not reach the service (connection refused; attempt ${n} of 4 failed), retrying in N s`));
    // Nothing is uncertain: no reconciling is claimed.
    expect(r.stderr).not.toMatch(/reconcile/);
    expect(r.stderr).toMatch(new RegExp(`^${u.acc}: could not reach ${closed}: connection refused \\(4 attempts over \\d+ s\\)\\. 0 changes acknowledged by the service\\. ` +
      '2 changes still waiting, none lost\\. Pull not done\\. Run sync again once the service can be reached\\.$', 'm'));
    expect(r.stdout).toBe('');
    expect(JSON.parse((await u.cli(['status', '--json'])).stdout)).toMatchObject({ pending: 2, uncertain: 0, in_flight: 0 });
  }, 30_000);

  it('import: the progress counts parcels checked, never "imported", and a refused file ends with why nothing was imported', async () => {
    const u = await user('importer');
    const bad = geojson('four.geojson', [{ name: 'A', lon: -4 }, { name: 'B', lon: -4.01 }, { name: 'C', lon: -4.02 }, { name: 'No area', lon: -4.03, hectares: false }]);
    const refused = await u.cli(['import', bad, '--farm', 'F']);
    expect(refused.status).toBe(1);
    const lines = refused.stderr.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'import four.geojson: checked 0/4 parcels',
      'import four.geojson: checked 4/4 parcels',
      expect.stringMatching(/^four\.geojson: 1 of 4 feature\(s\) cannot be imported, so nothing was imported/) as unknown,
    ]);
    expect(refused.stderr).not.toMatch(/imported$/m);
    expect(JSON.parse((await u.cli(['farms'])).stdout)).toEqual([]);

    const good = geojson('three.geojson', [{ name: 'A', lon: -4 }, { name: 'B', lon: -4.01 }, { name: 'C', lon: -4.02 }]);
    const ok = await u.cli(['import', good, '--farm', 'F']);
    expect([ok.status, ok.stdout, ok.stderr]).toEqual([0, "Imported 3 parcel(s) into 'F'.\n", 'import three.geojson: checked 0/3 parcels\nimport three.geojson: checked 3/3 parcels\n']);
  });

  it('a pull cut off partway says how far it got and why, once', async () => {
    const u = await user('puller');
    const ids: number[] = [];
    for (let i = 1; i <= 15; i++) {
      const res = await w.api('POST', '/api/farms/', { farm: { name: `Farm ${String(i).padStart(2, '0')}` }, parcels: parcelInputs(1, `farm${i}`, -4 + i * 0.01) }, { 'service-account': u.acc });
      expect(res.status).toBe(201);
      ids.push(res.body.id as number);
    }
    const listed = await w.api('GET', '/api/farms/', undefined, { 'service-account': u.acc });
    const tenth = (listed.body as { id: number }[])[9]!.id;
    await w.fault(`GET /api/farms/${tenth}/parcels/`, 'error', { status: 500, count: 1000 });
    try {
      for (const cmd of ['sync', 'pull']) {
        const r = await u.cli([cmd], { FURROW_MAX_WAIT_MS: '1500' });
        expect(r.status, cmd).toBe(1);
        // A pull's line says what it brought, not that the service acknowledged nothing (it sent nothing).
        expect(r.stderr, cmd).toContain(`${u.acc}: ${cmd === 'sync' ? '0 changes acknowledged by the service, ' : ''}9 parcels pulled. ` +
          `Pull stopped after 9 of 15 farms: GET /api/farms/${tenth}/parcels/?limit=500 keeps failing: Injected fault 500.\n`);
        expect(r.stderr).not.toMatch(/before it|error:/);
        expect(r.stderr).toMatch(new RegExp(`waiting 0 B sent — GET /api/farms/${tenth}/parcels/\\?limit=500 failed \\(Injected fault 500\\), retrying in \\d+ s`));
      }
    } finally {
      await fetch(`${w.svc.url}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'reset' }) });
    }
    const r = await u.cli(['pull']);
    // The pulls that stopped kept no cursor: this one lists everything again, and says so with the bytes it took.
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${u.acc}: 15 parcels pulled \\(listed in full, \\d+ (B|KB) on the wire\\)\n$`));
  }, 30_000);
});
