// Two service processes on one PostgreSQL database, as a hosted deployment runs them: batches sent to both at once
// are each all or none, the account's parcel limit holds in both, and each sees what the other wrote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PG_SKIP, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { serviceCli, spawnService, type ServiceProcess } from '../../../test/helpers/process.ts';
import { square } from '../../../test/helpers/service.ts';

describe.skipIf(PG_SKIP !== null)('two service processes on one PostgreSQL database', () => {
  const db = useTestDatabase();
  const dirs: string[] = [];
  const services: ServiceProcess[] = [];
  let headers: Record<string, string>;
  let farmId: number;

  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'furrow-two-'));
    dirs.push(d);
    return d;
  };
  const call = async (s: ServiceProcess, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${s.url}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: await res.json() as Record<string, unknown> };
  };

  beforeAll(async () => {
    const env = { DATABASE_URL: db().url, LOG_LEVEL: 'fatal' };
    const org = serviceCli(dir(), ['create-org', '--name', 'Two processes'], env).json as { organization_id: string; api_key: string };
    const acc = serviceCli(dir(), ['create-account', '--org', org.organization_id, '--email', 'two@example.com'], env).json as { id: string };
    expect(serviceCli(dir(), ['set-parcel-limit', '--account', acc.id, '--hectares', '20'], env).status).toBe(0);
    // Each process has a DATA_DIR of its own: only the database is shared.
    services.push(await spawnService(dir(), env), await spawnService(dir(), env));
    headers = { 'x-api-key': org.api_key, 'service-account': acc.id };
    const farm = await call(services[0]!, 'POST', '/api/farms/', { farm: { name: 'Shared farm' } });
    expect(farm.status, JSON.stringify(farm.json)).toBe(201);
    farmId = farm.json.id as number;
  }, 90_000);

  afterAll(async () => {
    for (const s of services) await s.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps every batch all or none and the parcel limit, whichever process takes it', async () => {
    // 24 batches of 50 at once, half to each process; every third carries one parcel of ~25 ha, over the limit of 20.
    const batch = (b: number) => ({
      farm: { id: farmId },
      parcels: Array.from({ length: 50 }, (_, i) => ({
        name: `b${b}-p${i}`,
        geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square(-3 + b * 0.02, 40 + i * 0.002, b % 3 === 0 && i === 17 ? 500 : 100) } },
      })),
    });
    const answers = await Promise.all(Array.from({ length: 24 }, (_, b) => call(services[b % 2]!, 'POST', '/api/parcels/', batch(b))));
    answers.forEach((a, b) => expect(a.status, JSON.stringify(a.json).slice(0, 300)).toBe(b % 3 === 0 ? 400 : 201));
    // Both processes see the same farm: exactly the 16 accepted batches, and totals that add up.
    for (const s of services) {
      const farm = await call(s, 'GET', `/api/farms/${farmId}/`);
      expect(farm.json.parcel_count).toBe(16 * 50);
      const listing = await call(s, 'GET', `/api/farms/${farmId}/parcels/`);
      const names = (listing.json.features as { properties: { name: string } }[]).map((f) => f.properties.name);
      expect(names).toHaveLength(800);
      expect(names.some((n) => /^b(0|3|6|9|12|15|18|21)-/.test(n))).toBe(false);
    }
  }, 120_000);
});
