// Every next/previous link the service hands out is absolute, built from PUBLIC_URL: a client follows it with
// fetch(next) over real HTTP (a relative one made fetch throw) and sees every row exactly once, filters kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asAccount, newAccount, newFarm, newOrg, pointParcel, startHttpService, startService, type Account, type Org, type TestService,
} from '../../test/helpers/service.ts';

let svc: TestService & { base: string };
let org: Org;
let acc: Account;
let h: Record<string, string>;
let farm: { id: number; parcels: { id: number }[] };

beforeAll(async () => {
  svc = await startHttpService();
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  h = asAccount(org, acc);
  farm = await newFarm(svc, org, acc, 'Paged', Array.from({ length: 7 }, (_, i) => ({ ...pointParcel(`P${i}`, 1 + i, -4.7 + i * 0.01, 37.9), metadata: { odd: i % 2 ? 'yes' : 'no' } })));
  for (let i = 0; i < 5; i++) {
    const res = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: h, payload: { parcel: farm.parcels[i]!.id, name: `C${i}` } });
    expect(res.statusCode).toBe(201);
  }
  await svc.store.plants.import(org.organization_id, acc.id, {
    type: 'FeatureCollection',
    features: Array.from({ length: 5 }, (_, i) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.7 + i * 0.01, 37.9] }, properties: { parcel: farm.parcels[i]!.id } })),
  });
});
afterAll(async () => {
  await svc.close();
});

/** Follows `next` with the platform's fetch from the first URL; returns every page's body. */
async function follow<T extends { next: string | null }>(first: string): Promise<T[]> {
  const pages: T[] = [];
  let url: string | null = first;
  while (url !== null) {
    expect(url.startsWith(`${svc.base}/api/`), url).toBe(true);
    const res = await fetch(url, { headers: h });
    expect(res.status, url).toBe(200);
    const page = await res.json() as T;
    pages.push(page);
    url = page.next;
    expect(pages.length).toBeLessThan(20);
  }
  return pages;
}

describe('next and previous are absolute URLs a client can fetch', () => {
  it('GET /api/parcels/: every parcel once, the filters kept', async () => {
    const pages = await follow<{ next: string | null; count: number; features: { id: number }[] }>(`${svc.base}/api/parcels/?limit=3`);
    expect(pages.map((p) => p.features.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap((p) => p.features.map((f) => f.id))).toEqual(farm.parcels.map((p) => p.id));
    const odd = await follow<{ next: string | null; features: { id: number }[] }>(`${svc.base}/api/parcels/?limit=2&metadata%5Bodd%5D=yes&farm=${farm.id}`);
    expect(odd.flatMap((p) => p.features.map((f) => f.id))).toEqual(farm.parcels.filter((_, i) => i % 2).map((p) => p.id));
  });

  it('GET /api/farms/{id}/parcels/ with limit: pages of the farm with an absolute next', async () => {
    const pages = await follow<{ next: string | null; count: number; features: { id: number }[] }>(`${svc.base}/api/farms/${farm.id}/parcels/?limit=4`);
    expect(pages.map((p) => [p.features.length, p.count])).toEqual([[4, 7], [3, 7]]);
    expect(pages.flatMap((p) => p.features.map((f) => f.id))).toEqual(farm.parcels.map((p) => p.id));
  });

  it('GET /api/crops/: next forwards, previous back, both absolute', async () => {
    const pages = await follow<{ next: string | null; previous: string | null; results: { id: number; name: string }[] }>(`${svc.base}/api/crops/?limit=2`);
    expect(pages.flatMap((p) => p.results.map((c) => c.name))).toEqual(['C0', 'C1', 'C2', 'C3', 'C4']);
    const last = pages[pages.length - 1]!;
    expect(last.previous).toBe(`${svc.base}/api/crops/?limit=2&offset=2`);
    const back = await (await fetch(last.previous!, { headers: h })).json() as { results: { name: string }[] };
    expect(back.results.map((c) => c.name)).toEqual(['C2', 'C3']);
  });

  it('GET /api/plants/: pages with limit/after, next null on the last', async () => {
    const pages = await follow<{ next: string | null; features: { id: number }[] }>(`${svc.base}/api/plants/?limit=2`);
    expect(pages.map((p) => p.features.length)).toEqual([2, 2, 1]);
    expect(new Set(pages.flatMap((p) => p.features.map((f) => f.id))).size).toBe(5);
    expect(((await (await fetch(`${svc.base}/api/plants/`, { headers: h })).json()) as { next: unknown }).next).toBeNull();
  });
});

describe('behind a proxy', () => {
  it('links start with PUBLIC_URL, path prefix included', async () => {
    const proxied = await startService({ publicUrl: 'https://maps.example.com/parcel-service' });
    try {
      const o = await newOrg(proxied);
      const a = await newAccount(proxied, o);
      await newFarm(proxied, o, a, 'F', [pointParcel('a', 1), pointParcel('b', 2)]);
      const res = await proxied.app.inject({ method: 'GET', url: '/api/parcels/?limit=1', headers: asAccount(o, a) });
      const next = (res.json() as { next: string }).next;
      expect(next).toMatch(/^https:\/\/maps\.example\.com\/parcel-service\/api\/parcels\/\?limit=1&after=\d+$/);
    } finally {
      await proxied.close();
    }
  });
});
