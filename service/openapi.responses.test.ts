// Live responses against the OpenAPI document: a scenario calls every operation, successes and the errors each
// can give (413 and 415 provoked on every operation that reads a body), and every response must have a status
// its operation declares and a body its schema accepts. Also: declared security is what the service enforces.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { asAccount, asBearer, newAccount, newOrg, polygonParcel, startService, type Account, type Org, type TestService } from '../test/helpers/service.ts';

type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

interface Operation { operationId: string; security: Record<string, string[]>[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }
type Doc = { paths: Record<string, Record<string, Operation>> };

const LIMIT = 64 * 1024;
let svc: TestService;
let doc: Doc;
let ajv: Ajv;
let org: Org;
let acc: Account;
/** Every response checked: operationId → statuses seen. */
const seen = new Map<string, Set<number>>();
const problems: string[] = [];

/** The document back into draft-07 for Ajv: OpenAPI 3.0's boolean exclusiveMinimum/Maximum become the numbers. */
function draft07(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draft07);
  if (node === null || typeof node !== 'object') return node;
  const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, draft07(v)]));
  for (const [bound, limit] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (o[bound] === true) {
      o[bound] = o[limit];
      delete o[limit];
    } else if (o[bound] === false) delete o[bound];
  }
  return o;
}

beforeAll(async () => {
  svc = await startService({ faults: true, bodyLimitBytes: LIMIT, parcelBodyLimitBytes: LIMIT });
  doc = (await svc.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Doc;
  ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(draft07(doc) as object, 'openapi');
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
});
beforeEach(() => {
  problems.length = 0;
});
afterAll(async () => {
  await svc.close();
});

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function operationFor(method: string, url: string): [string, Operation] | undefined {
  const path = new URL(url, 'http://x').pathname;
  for (const [template, item] of Object.entries(doc.paths)) {
    if (new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path)) {
      const op = item[method.toLowerCase()];
      return op ? [template, op] : undefined;
    }
  }
  return undefined;
}

/** Checks one response against the document; problems are collected and asserted at the end. */
function check(method: string, url: string, res: LightMyRequestResponse): void {
  const label = `${method} ${url} → ${res.statusCode}`;
  const found = operationFor(method, url);
  if (!found) return void problems.push(`${label}: no such operation in the document`);
  const [template, op] = found;
  if (!seen.has(op.operationId)) seen.set(op.operationId, new Set());
  seen.get(op.operationId)!.add(res.statusCode);
  const declared = op.responses[String(res.statusCode)];
  if (!declared) return void problems.push(`${label}: status not declared (declared: ${Object.keys(op.responses).join(', ')})`);
  if (res.statusCode === 204) {
    if (res.body !== '') problems.push(`${label}: a 204 with a body`);
    return;
  }
  if (!String(res.headers['content-type']).startsWith('application/json')) return void problems.push(`${label}: content-type ${res.headers['content-type']}`);
  if (!declared.content?.['application/json']) return void problems.push(`${label}: no application/json schema declared`);
  const ref = `openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', String(res.statusCode), 'content', 'application/json', 'schema')}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(res.json())) problems.push(`${label}: ${ajv.errorsText(validate.errors)} in ${res.body.slice(0, 300)}`);
}

async function call(method: string, url: string, headers: Record<string, string>, payload?: unknown, status?: number): Promise<LightMyRequestResponse> {
  const res = await svc.app.inject({
    method: method as 'GET', url, headers: payload !== undefined && typeof payload !== 'string' ? { ...headers, 'content-type': 'application/json' } : headers,
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
  check(method, url, res);
  if (status !== undefined) expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBe(status);
  return res;
}

describe('live responses match the document', () => {
  it('a scenario through every operation, successes and errors', async () => {
    const key = { 'x-api-key': org.api_key };
    const h = asAccount(org, acc);
    const b = asBearer(acc);
    // Accounts
    const other = (await call('POST', '/api/accounts/', key, { account_email: 'other@example.com' }, 201)).json() as Account;
    await call('POST', '/api/accounts/', key, { account_email: 'other@example.com' }, 409);
    await call('POST', '/api/accounts/', key, { account_email: 'not an email' }, 400);
    await call('POST', '/api/accounts/', b, { account_email: 'x@example.com' }, 403);
    await call('POST', '/api/accounts/', {}, { account_email: 'x@example.com' }, 401);
    await call('POST', '/api/accounts/', { ...key, ...b }, { account_email: 'x@example.com' }, 400);
    await call('GET', '/api/accounts/', key, undefined, 200);
    await call('GET', '/api/accounts/', b, undefined, 200);
    await call('GET', '/api/organization/', key, undefined, 200);
    await call('GET', '/api/organization/', b, undefined, 200);
    await call('GET', '/api/organization/', {}, undefined, 401);
    await call('GET', `/api/accounts/${acc.id}/`, key, undefined, 200);
    await call('GET', '/api/accounts/acc-nobody/', key, undefined, 403);
    await call('POST', `/api/accounts/${acc.id}/token/`, key, undefined, 200);
    await call('POST', `/api/accounts/${acc.id}/token/`, { authorization: 'Bearer a.b.c' }, undefined, 401);
    await call('DELETE', `/api/accounts/${other.id}/`, key, undefined, 204);
    await call('DELETE', `/api/accounts/${other.id}/`, key, undefined, 403);
    // The change feed's cursor before anything of the account changes (an extension; read after the plants and the deletes).
    const since = encodeURIComponent((await call('GET', '/api/changes/', h, undefined, 200)).json().cursor as string);
    // Farms
    const farm = (await call('POST', '/api/farms/', h, { farm: { name: 'Doc farm' }, parcels: [polygonParcel('North', -4.78, 37.88, 100, { 'Supplier ID': 'S-1' })] }, 201)).json() as { id: number; parcels: { id: number }[] };
    await call('POST', '/api/farms/', h, { farm: { name: 'Bad' }, parcels: [{ name: '' }] }, 400);
    await call('POST', '/api/farms/', key, { farm: { name: 'No account' } }, 400);
    await call('GET', '/api/farms/', b, undefined, 200);
    await call('GET', `/api/farms/${farm.id}/`, h, undefined, 200);
    await call('GET', '/api/farms/424242/', h, undefined, 404);
    await call('GET', '/api/farms/abc/', h, undefined, 400);
    await call('PATCH', `/api/farms/${farm.id}/`, b, { name: 'Renamed' }, 200);
    await call('GET', `/api/farms/${farm.id}/parcels/`, h, undefined, 200);
    // Parcels
    const created = (await call('POST', '/api/parcels/', h, { farm: { id: farm.id }, parcels: [polygonParcel('South', -4.77, 37.88, 100, { 'Supplier ID': 'S-2' }), polygonParcel('East', -4.76, 37.88)] }, 201)).json() as { id: number }[];
    await call('POST', '/api/parcels/', h, { parcels: [polygonParcel('Lost')] }, 200);
    await call('POST', '/api/parcels/', h, { farm: { id: farm.id }, parcels: [{ name: 'x', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [0, 0]]] } } }] }, 400);
    await call('POST', '/api/parcels/', h, { farm: { id: 424242 }, parcels: [polygonParcel('Nowhere')] }, 404);
    await call('GET', '/api/parcels/', h, undefined, 200);
    await call('GET', '/api/parcels/?metadata[Supplier+ID]=S-2', b, undefined, 200);
    await call('GET', '/api/parcels/?limit=1', h, undefined, 200);
    await call('GET', '/api/parcels/?farm=424242', h, undefined, 404);
    await call('GET', '/api/parcels/?bbox=3,2,1', h, undefined, 400);
    await call('GET', `/api/parcels/${created[0]!.id}/`, b, undefined, 200);
    await call('PATCH', `/api/parcels/${created[0]!.id}/`, h, { name: 'South renamed', metadata: { note: 'x' } }, 200);
    await call('PATCH', `/api/parcels/${created[0]!.id}/`, h, { name: '' }, 400);
    // Crops, crop families, plants
    const crop = (await call('POST', '/api/crops/', h, { parcel: farm.parcels[0]!.id, name: 'Wheat', family: { name: 'Poaceae' }, sowing: '2025-10-01' }, 201)).json() as { id: number };
    await call('POST', '/api/crops/', b, { parcel: farm.parcels[0]!.id, family: { name: 'Brand new family' } }, 403);
    await call('POST', '/api/crops/', h, { area: '12' }, 400);
    await call('GET', '/api/crops/?limit=1', h, undefined, 200);
    await call('GET', `/api/crops/${crop.id}/`, b, undefined, 200);
    await call('PATCH', `/api/crops/${crop.id}/`, h, { closure: '2026-07-01', is_active: false }, 200);
    await call('GET', `/api/parcels/${farm.parcels[0]!.id}/crops/`, h, undefined, 200);
    await call('GET', '/api/crop-families/', b, undefined, 200);
    await call('POST', '/api/crop-families/', key, { name: 'Docaceae', observation: 'for the document' }, 201);
    await call('POST', '/api/crop-families/', key, { name: 'docaceae' }, 409);
    await call('POST', '/api/crop-families/', b, { name: 'Bearer family' }, 403);
    await svc.store.plants.import(org.organization_id, acc.id, { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: { parcel: farm.parcels[0]!.id, info: 'olive tree' } }] });
    const plants = (await call('GET', '/api/plants/', h, undefined, 200)).json() as { features: { id: number }[] };
    await call('GET', '/api/plants/?parcel=424242', h, undefined, 404);
    await call('GET', `/api/plants/${plants.features[0]!.id}/`, b, undefined, 200);
    await call('GET', '/api/plants/424242/', b, undefined, 404);
    await call('GET', `/api/parcels/${farm.parcels[0]!.id}/plants/`, h, undefined, 200);
    // Changes: every kind of object, a page with next, a malformed cursor.
    await call('GET', `/api/changes/?since=${since}`, b, undefined, 200);
    await call('GET', `/api/changes/?since=${since}&limit=1`, h, undefined, 200);
    await call('GET', '/api/changes/?since=nope', h, undefined, 400);
    // Billing
    await call('GET', '/api/billing/', key, undefined, 200);
    await call('GET', '/api/billing/', b, undefined, 403);
    // The gateway's 504 (injected before any work), on a read and a write.
    for (const [method, url] of [['GET', '/api/farms/'], ['PATCH', `/api/farms/${farm.id}/`]] as const) {
      await svc.app.inject({ method: 'POST', url: '/__faults__', payload: { match: `${method} ${url.replace(/\d+/, '*').replace(/\*\/$/, '*')}`, mode: '504-before-commit' } });
      await call(method, url, h, method === 'PATCH' ? { name: 'Timed out' } : undefined, 504);
    }
    // Deletes last.
    await call('DELETE', `/api/crops/${crop.id}/`, h, undefined, 204);
    await call('DELETE', `/api/crops/${crop.id}/`, h, undefined, 404);
    await call('DELETE', `/api/parcels/${created[1]!.id}/`, b, undefined, 204);
    await call('DELETE', `/api/farms/${farm.id}/`, h, undefined, 204);
    await call('DELETE', `/api/farms/${farm.id}/`, h, undefined, 404);
    await call('GET', `/api/changes/?since=${since}`, h, undefined, 200); // tombstones

    expect(problems).toEqual([]);
    // Every operation of the document was called and answered 2xx at least once.
    const all = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    const succeeded = [...seen].filter(([, statuses]) => [...statuses].some((s) => s >= 200 && s < 300)).map(([id]) => id);
    expect(succeeded.sort()).toEqual(all.sort());
  });

  it('413 and 415 on every operation that reads a body, as declared', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(LIMIT) });
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of ['post', 'patch', 'delete'].filter((m) => item[m])) {
        const url = template.replace('{id}', template.startsWith('/api/accounts/') ? acc.id : '1');
        const key = { 'x-api-key': org.api_key, 'service-account': acc.id };
        await call(method.toUpperCase(), url, { ...key, 'content-type': 'text/plain' }, 'name=x', 415);
        await call(method.toUpperCase(), url, { ...key, 'content-type': 'application/xml' }, '<farm/>', 415);
        await call(method.toUpperCase(), url, { ...key, 'content-type': 'application/json' }, big, 413);
      }
    }
    expect(problems).toEqual([]);
  });

  it('declared security is enforced: a bearer token gets 403 forbidden exactly on the operations that do not list it', async () => {
    const b = asBearer(acc);
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const url = template.replace('{id}', template.startsWith('/api/accounts/') ? acc.id : '424242');
        const res = await svc.app.inject({ method: method.toUpperCase() as 'GET', url, headers: b, ...(['post', 'patch'].includes(method) ? { payload: {} } : {}) });
        const forbidden = res.statusCode === 403 && (res.json() as { code: string }).code === 'forbidden';
        expect(forbidden, `${method} ${template} → ${res.statusCode} ${res.body.slice(0, 120)}`).toBe(!op.security.some((r) => 'bearer' in r));
      }
    }
  });
});
