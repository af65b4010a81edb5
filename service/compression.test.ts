// Compressed answers: a listing asked for with gzip or br comes back in that coding and decodes to the same JSON as
// the identity answer; streamed listings stay streamed; small bodies, refusals (q=0) and the embedded map stay
// identity. Over a real socket, with node:http (fetch would decode behind the test's back).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import zlib from 'node:zlib';
import { startHttpService, newOrg, newAccount, newFarm, asAccount, polygonParcel, type TestService, type Org, type Account } from '../test/helpers/service.ts';
import { negotiate } from './compression.ts';

let svc: TestService & { base: string };
let org: Org;
let acc: Account;
let farmId: number;
beforeAll(async () => {
  svc = await startHttpService();
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  farmId = (await newFarm(svc, org, acc, 'Big', Array.from({ length: 40 }, (_, i) => polygonParcel(`p${i}`, -4.7 + i * 0.01, 37.88, 100, { crop: 'wheat' })))).id;
});
afterAll(async () => {
  await svc.close();
});

function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(`${svc.base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

describe('compression', () => {
  it('a listing with Accept-Encoding gzip comes back gzip and decodes to the identity JSON; without the header, identity', async () => {
    const plain = await get('/api/parcels/', asAccount(org, acc));
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    const json = JSON.parse(plain.body.toString('utf8')) as { features: unknown[] };
    expect(json.features).toHaveLength(40);
    const gz = await get('/api/parcels/', { ...asAccount(org, acc), 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
    expect(gz.body.length).toBeLessThan(plain.body.length / 3);
    expect(JSON.parse(zlib.gunzipSync(gz.body).toString('utf8'))).toEqual(json);
    const br = await get('/api/parcels/', { ...asAccount(org, acc), 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(zlib.brotliDecompressSync(br.body).toString('utf8'))).toEqual(json);
  });

  it('the OpenAPI document (public, cacheable) is compressed too, and says it varies with Accept-Encoding', async () => {
    const plain = await get('/api/openapi.json', {});
    expect(plain.status).toBe(200);
    const br = await get('/api/openapi.json', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(br.headers['cache-control']).toBe('public, max-age=300');
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
  });

  it("a farm's streamed parcel listing stays streamed (chunked) and decodes to the same bytes", async () => {
    const path = `/api/farms/${farmId}/parcels/`;
    const plain = await get(path, asAccount(org, acc));
    const gz = await get(path, { ...asAccount(org, acc), 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['transfer-encoding']).toBe('chunked');
    expect(gz.headers['content-length']).toBeUndefined();
    expect(zlib.gunzipSync(gz.body).equals(plain.body)).toBe(true);
  });

  it('identity for small bodies, for codings refused or unknown, and outside the API (the embedded map)', async () => {
    const small = await get(`/api/farms/${farmId}/`, { ...asAccount(org, acc), 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8')).id).toBe(farmId);
    for (const ae of ['gzip;q=0, br;q=0', 'deflate', 'identity']) {
      const r = await get('/api/parcels/', { ...asAccount(org, acc), 'accept-encoding': ae });
      expect(r.headers['content-encoding'], ae).toBeUndefined();
    }
    const embed = new URL(acc.embedded_url);
    const page = await get(`${embed.pathname}${embed.search}`, { 'accept-encoding': 'gzip, br' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBeUndefined();
  });

  it('negotiates brotli over gzip, honours q=0 and *', () => {
    expect(negotiate(undefined)).toBeUndefined();
    expect(negotiate('gzip')).toBe('gzip');
    expect(negotiate('gzip, br')).toBe('br');
    expect(negotiate('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(negotiate('*')).toBe('br');
    expect(negotiate('*, br;q=0')).toBe('gzip');
    expect(negotiate('x-gzip')).toBe('gzip');
    // Whitespace around ";" is allowed, and names and q are case-insensitive.
    expect(negotiate('GZIP ; Q=1')).toBe('gzip');
    expect(negotiate('br ;q=0.5 , gzip')).toBe('br');
    // A weight out of range or not a number makes its member invalid: not acceptance.
    expect(negotiate('br;q=-1, gzip')).toBe('gzip');
    expect(negotiate('br;q=abc')).toBeUndefined();
    expect(negotiate('br;q=1.5')).toBeUndefined();
    expect(negotiate('br;q=')).toBeUndefined();
    expect(negotiate('br;q=0.001')).toBe('br');
    expect(negotiate('identity, deflate')).toBeUndefined();
  });
});
