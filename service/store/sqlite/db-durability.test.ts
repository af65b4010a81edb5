// An acknowledged write is durable: whatever the service answered 201/200/204 is there after a SIGKILL that
// follows the answer at once. (A SIGKILL leaves the OS page cache intact, so this proves commit-before-answer;
// surviving power loss as well is what synchronous=FULL, the default checked below, adds.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { serviceCli, spawnService, type ServiceProcess } from '../../../test/helpers/process.ts';
import { pointParcel, polygonParcel } from '../../../test/helpers/service.ts';
import { configFromEnv } from '../../config.ts';

const LONG = process.env.CI_LONG === '1';
const ROUNDS = LONG ? 5 : 3;

interface Org { organization_id: string; api_key: string }
interface Feature { id: number; properties: { key: string; name: string; metadata: Record<string, unknown> } }

const spawned: ServiceProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const p of spawned.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(dir: string): Promise<ServiceProcess> {
  // No SQLITE_SYNCHRONOUS: the default (FULL) is what is under test.
  const env: NodeJS.ProcessEnv = { LOG_LEVEL: 'fatal', SQLITE_SYNCHRONOUS: undefined };
  const p = await spawnService(dir, env);
  spawned.push(p);
  return p;
}

/** SIGKILL the moment the answer is in, then a new process on the same data dir. */
async function killAndRestart(p: ServiceProcess, dir: string): Promise<ServiceProcess> {
  p.child.kill('SIGKILL');
  await p.exited;
  expect(p.child.signalCode).toBe('SIGKILL');
  return start(dir);
}

class Client {
  headers: Record<string, string> = {};
  constructor(public svc: ServiceProcess) {}
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const r = await fetch(`${this.svc.url}${path}`, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) as unknown : null };
  }
}

describe('durability of acknowledged writes', () => {
  it('defaults to synchronous=FULL', () => {
    expect(configFromEnv({}).synchronous).toBe('FULL');
  });

  it(`a 201 (each round), a 200 and a 204 survive a SIGKILL right after the answer (${ROUNDS} rounds)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'furrow-durable-'));
    dirs.push(dir);
    const cli = serviceCli(dir, ['create-org', '--name', 'Durable Org']);
    expect(cli.status, cli.stderr).toBe(0);
    const org = cli.json as Org;
    const c = new Client(await start(dir));
    c.headers = { 'x-api-key': org.api_key };
    const acc = await c.call('POST', '/api/accounts/', { account_email: 'durable@example.com' });
    expect(acc.status).toBe(201);
    // The account itself was acknowledged: it must survive too.
    c.svc = await killAndRestart(c.svc, dir);
    c.headers = { 'x-api-key': org.api_key, 'service-account': (acc.body as { id: string }).id };
    const farm = await c.call('POST', '/api/farms/', { farm: { name: 'Durable farm' }, parcels: [] });
    expect(farm.status).toBe(201);
    const farmId = (farm.body as { id: number }).id;

    const kept: Feature[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const parcels = [
        ...Array.from({ length: 20 }, (_, i) => polygonParcel(`r${round} #${i}`, -4.78 + i * 0.01, 37.88 + round * 0.01, 150, { round: String(round), i })),
        pointParcel(`r${round} point`, 4.5, 2.35, 48.85 + round * 0.01),
      ];
      const created = await c.call('POST', '/api/parcels/', { farm: { id: farmId }, parcels });
      expect(created.status).toBe(201);
      const features = created.body as Feature[];
      expect(features).toHaveLength(parcels.length);
      c.svc = await killAndRestart(c.svc, dir);

      for (const f of features) {
        const got = await c.call('GET', `/api/parcels/${f.id}/`);
        expect(got.status).toBe(200);
        expect(got.body).toEqual(f);
      }
      kept.push(...features);

      // A PATCH (200) and a DELETE (204) are acknowledged writes as well (once: a restart costs seconds).
      if (round > 0) continue;
      const [first, second] = features as [Feature, Feature];
      const patched = await c.call('PATCH', `/api/parcels/${first.id}/`, { metadata: { round: String(round), patched: true } });
      expect(patched.status).toBe(200);
      expect((await c.call('DELETE', `/api/parcels/${second.id}/`)).status).toBe(204);
      c.svc = await killAndRestart(c.svc, dir);
      expect(await c.call('GET', `/api/parcels/${first.id}/`)).toEqual({ status: 200, body: patched.body });
      expect((await c.call('GET', `/api/parcels/${second.id}/`)).status).toBe(404);
      kept.splice(kept.findIndex((k) => k.id === second.id), 1);
      kept[kept.findIndex((k) => k.id === first.id)] = patched.body as Feature;
    }

    // Everything acknowledged over all rounds, and nothing else, is in the farm.
    const all = await c.call('GET', `/api/farms/${farmId}/parcels/`);
    expect(all.status).toBe(200);
    const listed = (all.body as { features: Feature[] }).features;
    expect(listed.map((f) => f.id).sort((a, b) => a - b)).toEqual(kept.map((f) => f.id).sort((a, b) => a - b));
    expect(new Map(listed.map((f) => [f.id, f]))).toEqual(new Map(kept.map((f) => [f.id, f])));
  }, LONG ? 600_000 : 180_000);
});
