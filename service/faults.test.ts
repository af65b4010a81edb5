// Fault injection and the gateway, against the real service process over real HTTP on 127.0.0.1.
// Every fault the sync engine is tested with must behave as documented: before or after the commit,
// for exactly the next N matching requests, and leave everything else alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';
import { polygonParcel } from '../test/helpers/service.ts';

interface Org { organization_id: string; api_key: string }
interface Res { status: number; headers: Headers; body: unknown }

/** Spawned services and temp dirs of this file: whatever a test leaves behind, afterAll removes. */
const spawned: ServiceProcess[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'furrow-faults-'));
  dirs.push(d);
  return d;
}

async function start(dir: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const p = await spawnService(dir, { LOG_LEVEL: 'fatal', ...env });
  spawned.push(p);
  return p;
}

async function killAll(): Promise<void> {
  for (const p of spawned.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }
}

afterAll(async () => {
  await killAll();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** One service process with an organization, an account and a farm, acting with the API key + account header. */
class Client {
  headers: Record<string, string> = {};
  farmId = 0;
  constructor(readonly svc: ServiceProcess) {}

  async call(method: string, path: string, body?: unknown): Promise<Res> {
    const r = await fetch(`${this.svc.url}${path}`, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: r.status, headers: r.headers, body: parsed };
  }

  async setUp(org: Org): Promise<void> {
    const acc = await fetch(`${this.svc.url}/api/accounts/`, {
      method: 'POST', headers: { 'x-api-key': org.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ account_email: `faults-${Math.random().toString(36).slice(2)}@example.com` }),
    });
    expect(acc.status).toBe(201);
    const { id } = await acc.json() as { id: string };
    this.headers = { 'x-api-key': org.api_key, 'service-account': id };
    const farm = await this.call('POST', '/api/farms/', { farm: { name: 'Fault farm' }, parcels: [] });
    expect(farm.status, JSON.stringify(farm.body)).toBe(201);
    this.farmId = (farm.body as { id: number }).id;
  }

  fault(rule: Record<string, unknown>): Promise<Res> {
    return this.call('POST', '/__faults__', rule);
  }

  /** How many of the farm's parcels carry metadata.batch === tag. */
  async tagged(tag: string): Promise<number> {
    const r = await this.call('GET', `/api/farms/${this.farmId}/parcels/`);
    expect(r.status).toBe(200);
    return (r.body as { features: { properties: { metadata: Record<string, unknown> } }[] }).features
      .filter((f) => f.properties.metadata.batch === tag).length;
  }

  /** Polls until the tagged count reaches `want` or the deadline passes; returns the last count. */
  async waitTagged(tag: string, want: number, deadlineMs = 15_000): Promise<number> {
    const end = Date.now() + deadlineMs;
    for (;;) {
      const n = await this.tagged(tag);
      if (n >= want || Date.now() > end) return n;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  postBatch(tag: string, n = 3): Promise<Res> {
    return this.call('POST', '/api/parcels/', { farm: { id: this.farmId }, parcels: batch(tag, n) });
  }
}

let tagSeq = 0;
const newTag = (what: string) => `${what}-${++tagSeq}`;

function batch(tag: string, n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => polygonParcel(`${tag} #${i}`, -4.78 + i * 0.01, 37.88, 100, { batch: tag }));
}

function createOrg(dir: string): Org {
  const r = serviceCli(dir, ['create-org', '--name', 'Fault Org']);
  expect(r.status, r.stderr).toBe(0);
  return r.json as Org;
}

describe('POST /__faults__', () => {
  it('exists only with FAULTS=1', async () => {
    const off = await start(tempDir(), {});
    const offRes = await fetch(`${off.url}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'reset' }) });
    expect(offRes.status).toBe(404);
    expect((await fetch(`${off.url}/__faults__`)).status).toBe(404);

    const on = await start(tempDir(), { FAULTS: '1' });
    const onRes = await fetch(`${on.url}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'reset' }) });
    expect(onRes.status).toBe(200);
    expect(await onRes.json()).toEqual({ faults: [] });
    const bad = await fetch(`${on.url}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match: 'POST /api/parcels/', mode: 'explode' }) });
    expect(bad.status).toBe(400);
  }, 90_000);
});

describe('fault modes on POST /api/parcels/ (FAULTS=1)', () => {
  let c: Client;

  beforeAll(async () => {
    const dir = tempDir();
    const org = createOrg(dir);
    c = new Client(await start(dir, { FAULTS: '1' }));
    await c.setUp(org);
  }, 90_000);

  afterEach(async () => {
    if (c?.svc.child.exitCode === null) expect((await c.fault({ mode: 'reset' })).status).toBe(200);
  });

  it("'504-after-commit': 504, and the batch is in the farm", async () => {
    expect((await c.fault({ match: 'POST /api/parcels/', mode: '504-after-commit' })).status).toBe(200);
    const tag = newTag('after');
    const r = await c.postBatch(tag, 4);
    expect(r.status).toBe(504);
    expect((r.body as { code: string }).code).toBe('gateway_timeout');
    expect(await c.tagged(tag)).toBe(4);
  });

  it("'504-before-commit': 504, and nothing was created", async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: '504-before-commit' });
    const tag = newTag('before');
    const r = await c.postBatch(tag, 4);
    expect(r.status).toBe(504);
    expect((r.body as { code: string }).code).toBe('gateway_timeout');
    expect(await c.tagged(tag)).toBe(0);
  });

  it("'drop-after-commit': the connection drops (fetch rejects), and the batch is committed", async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: 'drop-after-commit' });
    const tag = newTag('drop');
    await expect(c.postBatch(tag, 5)).rejects.toThrow();
    expect(await c.waitTagged(tag, 5)).toBe(5);
    // The service itself is fine.
    expect((await c.postBatch(newTag('after-drop'), 1)).status).toBe(201);
  });

  // How long the request is held, to the millisecond, is checked on the service's own timers (gateway.test.ts).
  it("'delay': the delayed request is then answered as usual (201, the batch in the farm)", async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: 'delay', ms: 300 });
    const tag = newTag('delay');
    const r = await c.postBatch(tag, 2);
    expect(r.status).toBe(201);
    expect(await c.tagged(tag)).toBe(2);
    expect(((await c.call('GET', '/__faults__')).body as { faults: unknown[] }).faults).toEqual([]);
  });

  it("'error' with status 503 and retry_after: the status, a Retry-After header, nothing created", async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: 'error', status: 503, retry_after: 7 });
    const tag = newTag('error');
    const r = await c.postBatch(tag, 3);
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('7');
    const b = r.body as Record<string, unknown>;
    expect(typeof b.code).toBe('string');
    expect(b.detail).toBe(b.message);
    expect(await c.tagged(tag)).toBe(0);
  });

  it("'missing-farm-id': the spec's 200 with message 'Missing Farm ID', and nothing created", async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: 'missing-farm-id' });
    const tag = newTag('missing');
    const r = await c.postBatch(tag, 2);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'Missing Farm ID' });
    expect(await c.tagged(tag)).toBe(0);
  });

  it('count N affects exactly the next N matching requests', async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: '504-before-commit', count: 3 });
    const listed = await c.call('GET', '/__faults__');
    expect((listed.body as { faults: { remaining: number }[] }).faults).toMatchObject([{ remaining: 3 }]);
    const statuses: number[] = [];
    const tags: string[] = [];
    for (let i = 0; i < 5; i++) {
      const tag = newTag(`count${i}`);
      tags.push(tag);
      statuses.push((await c.postBatch(tag, 1)).status);
    }
    expect(statuses).toEqual([504, 504, 504, 201, 201]);
    expect(await Promise.all(tags.map((t) => c.tagged(t)))).toEqual([0, 0, 0, 1, 1]);
    expect(((await c.call('GET', '/__faults__')).body as { faults: unknown[] }).faults).toEqual([]);
  });

  it("'reset' clears every pending fault", async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: 'error', status: 503, count: 10 });
    await c.fault({ match: '* *', mode: '504-before-commit', count: 10 });
    const reset = await c.fault({ mode: 'reset' });
    expect(reset.body).toEqual({ faults: [] });
    const tag = newTag('reset');
    expect((await c.postBatch(tag, 2)).status).toBe(201);
    expect(await c.tagged(tag)).toBe(2);
  });

  it('requests that do not match are unaffected, and the matching one still gets the fault', async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: 'error', status: 503 });
    expect((await c.call('GET', `/api/farms/${c.farmId}/parcels/`)).status).toBe(200);
    expect((await c.call('GET', '/api/parcels/')).status).toBe(200);
    expect((await c.call('GET', '/api/farms/')).status).toBe(200);
    const other = await c.call('POST', '/api/farms/', { farm: { name: 'Unaffected' }, parcels: batch(newTag('farm'), 1) });
    expect(other.status).toBe(201);
    const firstParcel = (other.body as { parcels: { id: number }[] }).parcels[0]!.id;
    expect((await c.call('PATCH', `/api/parcels/${firstParcel}/`, { metadata: { batch: 'patched' } })).status).toBe(200);
    const tag = newTag('match');
    expect((await c.postBatch(tag, 1)).status).toBe(503);
    expect(await c.tagged(tag)).toBe(0);
    expect((await c.postBatch(tag, 1)).status).toBe(201);
  });

  it('a prefix match (PATCH /api/parcels/*) and a method wildcard hit only what they name', async () => {
    const created = await c.postBatch(newTag('prefix'), 1);
    const [{ id, properties: { name } }] = created.body as [{ id: number; properties: { name: string } }];
    await c.fault({ match: 'PATCH /api/parcels/*', mode: '504-before-commit', count: 1 });
    expect((await c.call('GET', `/api/parcels/${id}/`)).status).toBe(200);
    expect((await c.call('PATCH', `/api/parcels/${id}/`, { name: 'renamed' })).status).toBe(504);
    expect(((await c.call('GET', `/api/parcels/${id}/`)).body as { properties: { name: string } }).properties.name).toBe(name);
    expect((await c.call('PATCH', `/api/parcels/${id}/`, { name: 'renamed' })).status).toBe(200);

    await c.fault({ match: `* /api/parcels/${id}/`, mode: 'error', status: 503, count: 2 });
    expect((await c.call('GET', `/api/parcels/${id}/`)).status).toBe(503);
    expect((await c.call('DELETE', `/api/parcels/${id}/`)).status).toBe(503);
    expect((await c.call('GET', `/api/parcels/${id}/`)).status).toBe(200);
  });
});

// The limit is wide enough that set-up and the fast request pass it on a loaded host (at 300 ms, CI's chaos test
// saw a service's first POST overrun its 400 ms gateway); the slow request is delayed well past it.
describe('the gateway (GATEWAY_TIMEOUT_MS=1000)', () => {
  let c: Client;

  beforeAll(async () => {
    const dir = tempDir();
    const org = createOrg(dir);
    c = new Client(await start(dir, { FAULTS: '1', GATEWAY_TIMEOUT_MS: '1000' }));
    await c.setUp(org);
  }, 90_000);

  // That the 504 comes at the limit and before the work commits is checked on the service's own timers
  // (gateway.test.ts); here, that the real process over real HTTP answers it and still commits.
  it('answers 504 while a slow request goes on, and the request commits', async () => {
    await c.fault({ match: 'POST /api/parcels/', mode: 'delay', ms: 2500 });
    const tag = newTag('gateway');
    const r = await c.postBatch(tag, 5);
    expect(r.status).toBe(504);
    expect((r.body as { code: string }).code).toBe('gateway_timeout');
    expect(await c.waitTagged(tag, 5)).toBe(5);
  });

  it('answers fast requests normally', async () => {
    const tag = newTag('fast');
    const r = await c.postBatch(tag, 2);
    expect(r.status).toBe(201);
    expect(await c.tagged(tag)).toBe(2);
  });
});
