// U+0000 in a request (service/nul.ts): refused alike on both stores, wherever it is, nothing written. On the
// PostgreSQL store these requests answered 500 (its text and jsonb cannot hold a NUL) while SQLite stored them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { hasNulEscape } from './nul.ts';
import { RAW_BODY_BYTES } from './raw-body.ts';
import { asAccount, newAccount, newFarm, newOrg, polygonParcel, startService, type TestService } from '../test/helpers/service.ts';

describe('hasNulEscape', () => {
  it.each([
    ['{"a":"\\u0000"}', true],
    ['{"a":"x\\\\\\u0000"}', true], // an escaped backslash, then the escape
    ['{"a":"\\\\u0000"}', false], // an escaped backslash, then the text u0000
    ['{"a":"\\\\\\\\u0000"}', false],
    ['{"u0000":"u0000"}', false],
    ['{"a":"\\u00001"}', true],
    ['{"a":"\\u0001"}', false],
  ])('%s → %s', (json, nul) => {
    expect(hasNulEscape(Buffer.from(json))).toBe(nul);
    // Only a real NUL escape makes a NUL: the check agrees with JSON.parse.
    const holds = (v: unknown): boolean => (typeof v === 'string' ? v.includes('\u0000')
      : Object.entries(v as object).some(([k, x]) => k.includes('\u0000') || holds(x)));
    expect(holds(JSON.parse(json))).toBe(nul);
  });
});

describe('a request with U+0000', () => {
  let svc: TestService;
  let h: Record<string, string>;
  let farmId: number;
  let parcelId: number;

  beforeAll(async () => {
    svc = await startService();
    const org = await newOrg(svc, 'NUL Org');
    const acc = await newAccount(svc, org);
    h = asAccount(org, acc);
    const farm = await newFarm(svc, org, acc, 'Farm', [polygonParcel('Parcel')]);
    farmId = farm.id;
    parcelId = farm.parcels[0]!.id;
  });
  afterAll(async () => {
    await svc.close();
  });

  async function refused(opts: InjectOptions, where: 'body' | 'url'): Promise<void> {
    const before = JSON.stringify(await svc.probe.snapshot());
    const res = await svc.app.inject({ ...opts, headers: { ...h, ...opts.headers } });
    const label = `${opts.method} ${opts.url} → ${res.statusCode} ${res.body.slice(0, 200)}`;
    expect(res.statusCode, label).toBe(400);
    const body = res.json() as { code: string; message: string; errors: { path: string; code: string }[] };
    expect(body.code, label).toBe('validation_failed');
    expect(body.message, label).toContain('NUL character (U+0000)');
    expect(body.errors, label).toEqual([expect.objectContaining({ path: where, code: 'nul_character' })]);
    expect(JSON.stringify(await svc.probe.snapshot()), label).toBe(before);
  }

  it('in any text of a JSON body: names, metadata keys and values, crops, e-mails', async () => {
    const p = polygonParcel('P');
    const withMetadata = (metadata: Record<string, string>) => ({ ...p, geom: { ...p.geom, properties: { metadata } } });
    await refused({ method: 'POST', url: '/api/farms/', payload: { farm: { name: 'North\u0000' }, parcels: [] } }, 'body');
    await refused({ method: 'POST', url: '/api/farms/', payload: { farm: { name: 'North' }, parcels: [{ ...p, name: '\u0000' }] } }, 'body');
    await refused({ method: 'PATCH', url: `/api/farms/${farmId}/`, payload: { name: 'a\u0000b' } }, 'body');
    await refused({ method: 'POST', url: '/api/parcels/', payload: { farm: { id: farmId }, parcels: [{ ...p, name: 'a\u0000b' }] } }, 'body');
    await refused({ method: 'POST', url: '/api/parcels/', payload: { farm: { id: farmId }, parcels: [withMetadata({ 'crop\u0000': 'wheat' })] } }, 'body');
    await refused({ method: 'POST', url: '/api/parcels/', payload: { farm: { id: farmId }, parcels: [withMetadata({ crop: 'wheat\u0000' })] } }, 'body');
    await refused({ method: 'PATCH', url: `/api/parcels/${parcelId}/`, payload: { name: 'a\u0000b' } }, 'body');
    await refused({ method: 'POST', url: '/api/crops/', payload: { parcel: parcelId, name: 'Wheat\u0000' } }, 'body');
    await refused({ method: 'POST', url: '/api/accounts/', payload: { account_email: 'a\u0000@example.com' } }, 'body');
  });

  it('in a bulk create large enough to be parsed by the validation pool', async () => {
    const parcels = Array.from({ length: 50 }, (_, i) => polygonParcel(`P${i} ${'x'.repeat(200)}`, -4.78 + i * 0.01, 37.88, 100, { note: 'y'.repeat(5_000) }));
    parcels[37] = { ...parcels[37]!, name: 'late\u0000' };
    const payload = JSON.stringify({ farm: { id: farmId }, parcels });
    expect(payload.length).toBeGreaterThanOrEqual(RAW_BODY_BYTES);
    await refused({ method: 'POST', url: '/api/parcels/', payload, headers: { 'content-type': 'application/json' } }, 'body');
  });

  it('before the body is found not to be JSON, small or large alike', async () => {
    await refused({ method: 'POST', url: '/api/farms/', payload: '{"farm":{"name":"\\u0000"', headers: { 'content-type': 'application/json' } }, 'body');
    const large = `{"farm":{"id":${farmId}},"parcels":["\\u0000",${'1,'.repeat(RAW_BODY_BYTES / 2)}`;
    await refused({ method: 'POST', url: '/api/parcels/', payload: large, headers: { 'content-type': 'application/json' } }, 'body');
  });

  it('in a query parameter; in a path, an id that names nothing', async () => {
    for (const url of ['/api/accounts/acc-%00/', '/api/accounts/%00/']) {
      const res = await svc.app.inject({ method: 'GET', url, headers: h });
      expect([res.statusCode, (res.json() as { code: string }).code], url).toEqual([403, 'account_not_found']);
    }
    await refused({ method: 'GET', url: '/api/parcels/?search=a%00' }, 'url');
    await refused({ method: 'GET', url: `/api/farms/${farmId}/parcels/?metadata%5Bk%5D=v%00` }, 'url');
  });

  it('an escaped backslash before u0000 is the text \\u0000, stored and answered as sent', async () => {
    const name = 'C:\\u0000 field';
    const res = await svc.app.inject({ method: 'PATCH', url: `/api/parcels/${parcelId}/`, headers: h, payload: { name } });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { properties: { name: string } }).properties.name).toBe(name);
    const again = await svc.app.inject({ method: 'GET', url: `/api/parcels/${parcelId}/`, headers: h });
    expect((again.json() as { properties: { name: string } }).properties.name).toBe(name);
  });

  it('in the admin panel\'s forms (the sign-in form, before any session)', async () => {
    const res = await svc.app.inject({
      method: 'POST', url: '/admin/login', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      payload: 'email=boss%00%40example.com&password=x',
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
    expect(res.body).toContain('NUL character (U+0000)');
  });
});
