// The gateway's time limit and the 'delay' fault, on the service's own timers. The test moves a fake clock
// (setTimeout, clearTimeout and performance.now; I/O and setImmediate stay real) instead of sleeping, so what the
// service does at 299 ms and at 300 ms is exact on a loaded machine as on a fast one. faults.test.ts checks the same
// modes over real HTTP on a real process, without asserting any time.
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  asAccount, newAccount, newFarm, newOrg, polygonParcel, startService, type TestService,
} from '../test/helpers/service.ts';
import { turn, until } from '../test/helpers/event-loop.ts';
import { TEST_STORE } from '../test/helpers/store.ts';

let svc: TestService | null = null;
let h: Record<string, string> = {};
let farmId = 0;

async function start(gatewayTimeoutMs: number): Promise<void> {
  svc = await startService({ gatewayTimeoutMs, faults: true });
  const org = await newOrg(svc);
  const acc = await newAccount(svc, org);
  h = asAccount(org, acc);
  farmId = (await newFarm(svc, org, acc, 'Gateway')).id;
  await svc.app.ready();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
}

afterEach(async () => {
  vi.useRealTimers();
  await svc?.close();
  svc = null;
});

/** A request in flight, and whether it has been answered yet. */
function send(method: 'GET' | 'POST', url: string, payload?: unknown): { answered: () => boolean; response: Promise<LightMyRequestResponse> } {
  let done = false;
  const response = svc!.app.inject({ method, url, headers: h, ...(payload === undefined ? {} : { payload: payload as object }) })
    .finally(() => { done = true; });
  return { answered: () => done, response };
}

async function fault(rule: Record<string, unknown>): Promise<void> {
  const r = await svc!.app.inject({ method: 'POST', url: '/__faults__', payload: rule });
  expect(r.statusCode, r.body).toBe(200);
}

/** How many of the farm's parcels carry metadata.batch === tag. */
async function tagged(tag: string): Promise<number> {
  const r = await svc!.app.inject({ method: 'GET', url: `/api/farms/${farmId}/parcels/`, headers: h });
  expect(r.statusCode).toBe(200);
  return (r.json() as { features: { properties: { metadata: { batch?: string } } }[] }).features
    .filter((f) => f.properties.metadata.batch === tag).length;
}

const postBatch = (tag: string, n: number) => send('POST', '/api/parcels/', {
  farm: { id: farmId }, parcels: Array.from({ length: n }, (_, i) => polygonParcel(`${tag} #${i}`, -4.78 + i * 0.01, 37.88, 100, { batch: tag })),
});

// Fake timers drive these tests, and they would freeze node-postgres's own (connect, idle): on PostgreSQL the gateway's
// 504 after and before the commit is tested against a real service process instead (faults.test.ts).
const onSqlite = TEST_STORE === 'sqlite';

describe.runIf(onSqlite)("the 'delay' fault", () => {
  it('holds the request for exactly its ms before any work, then answers it as usual', async () => {
    await start(0);
    await fault({ match: 'POST /api/parcels/', mode: 'delay', ms: 700 });
    const req = postBatch('delay', 2);
    await until(() => vi.getTimerCount() === 1, 'the request waiting on the delay');
    await vi.advanceTimersByTimeAsync(699);
    await turn();
    expect(req.answered()).toBe(false);
    expect(await tagged('delay')).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await until(req.answered, 'the request answered once its delay is over');
    const r = await req.response;
    expect(r.statusCode, r.body).toBe(201);
    expect(await tagged('delay')).toBe(2);
  });
});

describe.runIf(onSqlite)('the gateway (limit 300 ms)', () => {
  it('answers 504 at the limit while a delayed request waits, and the work commits when the delay ends', async () => {
    await start(300);
    await fault({ match: 'POST /api/parcels/', mode: 'delay', ms: 1000 });
    const req = postBatch('slow', 5);
    // The gateway's timer and the delay's.
    await until(() => vi.getTimerCount() === 2, 'the request timed by the gateway and waiting on the delay');
    await vi.advanceTimersByTimeAsync(299);
    await turn();
    expect(req.answered()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await until(req.answered, 'the gateway answering at its limit');
    const r = await req.response;
    expect(r.statusCode).toBe(504);
    expect(r.json()).toMatchObject({ code: 'gateway_timeout' });
    // The client has its 504; the work has not been done yet, and goes on.
    expect(await tagged('slow')).toBe(0);
    await vi.advanceTimersByTimeAsync(700);
    await until(async () => (await tagged('slow')) === 5, 'the delayed batch committed');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves a request answered within the limit alone, and clears its timer', async () => {
    await start(300);
    const req = postBatch('fast', 2);
    const r = await req.response;
    expect(r.statusCode, r.body).toBe(201);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await tagged('fast')).toBe(2);
  });
});
