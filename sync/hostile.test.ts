// The CLI against a hostile proxy in front of the real service: every attack a broken proxy, captive portal or
// misbehaving service could mount (slow, silent, endless, oversized, wrong-shaped, HTML, redirecting, an absurd
// Retry-After), on the pushes — after the service has committed them — and on the pulls. Whatever the attack, a
// run ends within its deadlines, and once the proxy behaves, the next syncs leave: every parcel on the service
// exactly once, nothing lost or left waiting, the mirror's integrity_check ok, and the API key never printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { refCounts, serviceFarms, serviceParcels } from '../test/helpers/engine.ts';
import { hostileProxy, type Attack, type AttackKind, type HostileProxy } from '../test/helpers/hostile.ts';
import { Mirror } from '../db/mirror.ts';
import { runCli } from '../cli/main.ts';

let w: SyncWorld;
let proxy: HostileProxy;
beforeAll(async () => {
  w = await syncWorld({ LOG_LEVEL: 'fatal' });
  proxy = await hostileProxy(w.svc.url);
});
afterAll(async () => {
  await proxy?.close();
  await w?.close();
});

// Short deadlines, so an attack costs seconds; a smaller answer cap (2 MiB), so "oversized" needs only a few megabytes.
const ENV = {
  FURROW_SETTLE_MS: '200', FURROW_MAX_WAIT_MS: '2500', FURROW_HTTP_DEADLINE_MS: '1000', FURROW_HTTP_TIMEOUT_MS: '1000',
  FURROW_MAX_ANSWER_BYTES: String(2 << 20),
};

interface World { home: string; acc: string; mirror: Mirror; farmLocal: string; printed: string[] }

async function cli(x: World, args: string[]): Promise<number> {
  let out = '';
  const status = await runCli(args, { env: { FURROW_HOME: x.home, ...ENV }, stdout: { write: (s: string) => { out += s; } }, stderr: { write: (s: string) => { out += s; } } });
  x.printed.push(out);
  return status;
}

/** A CLI home connected through the proxy to a new account, with a farm of `synced` parcels on the service. */
async function world(tag: string, synced: number): Promise<World> {
  const home = mkdtempSync(join(w.dir, 'hostile-'));
  const acc = (await w.api('POST', '/api/accounts/', { account_email: `${tag}-${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
  const x: World = { home, acc, mirror: null as unknown as Mirror, farmLocal: '', printed: [] };
  expect(await cli(x, ['connect', '--service', proxy.url, '--api-key', w.apiKey, '--account', acc])).toBe(0);
  x.mirror = Mirror.open(join(home, 'mirror.db'));
  x.farmLocal = x.mirror.write.createFarm(acc, `Farm ${tag}`).local_id;
  if (synced > 0) {
    x.mirror.write.createParcels(x.farmLocal, parcelInputs(synced, tag));
    expect(await cli(x, ['sync'])).toBe(0);
  }
  return x;
}

/** With the proxy honest again: `retry` and `sync` until the run is clean (uncertain work settles over two checks). */
async function heal(x: World): Promise<void> {
  proxy.attack = null;
  let status = -1;
  for (let i = 0; i < 6 && status !== 0; i++) {
    await cli(x, ['retry']);
    status = await cli(x, ['sync']);
  }
  expect(status, x.printed.slice(-4).join('\n----\n')).toBe(0);
}

/** Everything the issue promises, whatever happened on the way. */
async function expectWhole(x: World, names: readonly string[]): Promise<void> {
  const db = new Database(join(x.home, 'mirror.db'), { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.prepare("SELECT count(*) FROM outbox WHERE state <> 'committed'").pluck().get()).toBe(0);
  db.close();
  const farms = await serviceFarms(w, x.acc);
  expect(farms).toHaveLength(1);
  const onService = await serviceParcels(w, x.acc, farms[0]!.id);
  expect(onService.map((p) => p.properties.name).sort()).toEqual([...names].sort());
  expect([...refCounts(onService).values()].every((n) => n === 1)).toBe(true);
  expect(x.mirror.read.parcels(x.farmLocal).map((p) => p.name).sort()).toEqual([...names].sort());
  // The key is in credentials.json (0600) only: never printed, never in the mirror.
  expect(x.printed.join('\n')).not.toContain(w.apiKey);
  expect(readFileSync(join(x.home, 'mirror.db')).includes(w.apiKey)).toBe(false);
  x.mirror.close();
}

/** Runs `sync` under the attack: it must end on its own within the deadlines, with an exit code, never a crash. */
async function underAttack(x: World, attack: Attack): Promise<number> {
  proxy.attack = attack;
  proxy.hits = 0;
  const t0 = Date.now();
  const status = await cli(x, ['sync']);
  expect(Date.now() - t0).toBeLessThan(15_000);
  expect([0, 1, 2]).toContain(status);
  expect(proxy.hits).toBeGreaterThan(0);
  return status;
}

const KINDS: AttackKind[] = ['trickle', 'never', 'endless', 'oversized', 'wrong-shape', 'html200', 'redirect', 'retry-after'];
const names = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}-${i}`);

describe('pushes under attack, after the service committed them', () => {
  it.each(KINDS)('%s: no duplicate, nothing lost, once the proxy behaves', async (kind) => {
    const x = await world(`push-${kind}`, 0);
    // 120 new parcels: three batches of 50, 50 and 20.
    x.mirror.write.createParcels(x.farmLocal, parcelInputs(120, `push-${kind}`));
    const attack: Attack = {
      kind, match: (method, path) => method === 'POST' && path === '/api/parcels/', forward: kind !== 'retry-after',
      // A 201 whose features are not the parcels sent: an answer the engine cannot book.
      shape: () => [{ id: 1, type: 'Feature', properties: { name: 'someone else' }, geometry: null }], bytes: 4 << 20,
    };
    await underAttack(x, attack);
    await heal(x);
    await expectWhole(x, names(120, `push-${kind}`));
  }, 60_000);
});

describe('pulls under attack, with unsent local work', () => {
  // What a pull reads: the farm list and the farms' listings, and the change feed (a service with it is read there).
  const lists = (method: string, path: string) => method === 'GET' && /^\/api\/(farms\/(\d+\/parcels\/)?|changes\/)(\?.*)?$/.test(path);
  it.each(KINDS)('%s: the local work survives, and syncs once the proxy behaves', async (kind) => {
    const tag = `pull-${kind}`;
    const x = await world(tag, 60);
    // Unsent work the pull must never drop: a rename and two new parcels.
    const [first] = x.mirror.read.parcels(x.farmLocal);
    x.mirror.write.updateParcel(first!.local_id, { name: `${tag}-renamed` });
    x.mirror.write.createParcels(x.farmLocal, parcelInputs(2, `${tag}-new`, -3.5));
    const attack: Attack = {
      kind, match: lists, forward: kind !== 'retry-after',
      // A list that is not a list (an object), and a listing without its features.
      shape: (json) => (Array.isArray(json) ? { farms: json } : { type: 'FeatureCollection', count: 60 }), bytes: 4 << 20,
    };
    await underAttack(x, attack);
    expect(x.mirror.read.parcels(x.farmLocal)).toHaveLength(62);
    expect(x.mirror.read.parcel(first!.local_id)?.name).toBe(`${tag}-renamed`);
    await heal(x);
    await expectWhole(x, [`${tag}-renamed`, ...names(60, tag).slice(1), ...names(2, `${tag}-new`)]);
  }, 60_000);
});
