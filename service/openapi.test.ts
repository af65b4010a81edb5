// The machine-readable description (spec: "Versioning"): public, OpenAPI 3.0.3, version 0.0.1, every /api route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../test/helpers/service.ts';
import { registeredRoutes as routesOf } from '../test/helpers/routes.ts';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; style?: string; explode?: boolean; schema?: Record<string, unknown> }[];
  responses?: Record<string, unknown>;
}

interface Doc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>>; schemas?: Record<string, unknown> };
  security?: Record<string, string[]>[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// The document does not describe itself.
const UNDOCUMENTED = new Set(['GET /api/openapi.json']);

let svc: TestService;
let doc: Doc;

beforeAll(async () => {
  svc = await startService();
  const res = await svc.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json() as Doc;
});
afterAll(async () => {
  await svc.close();
});

const normalize = (path: string) => path.replace(/\{(\w+)\}/g, ':$1').replace(/\/+$/, '');

function documentedRoutes(): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      if (HTTP_METHODS.includes(method)) out.push(`${method.toUpperCase()} ${normalize(path)}`);
    }
  }
  return out;
}

/** Every operation of the document as [path, method, operation]. */
const operations = (): Array<[string, string, Operation]> =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([m]) => HTTP_METHODS.includes(m)).map(([m, op]) => [path, m, op] as [string, string, Operation]));

/** Every object in the document with its JSON path. */
function* nodes(v: unknown, path = '#'): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield* nodes(v[i], `${path}/${i}`);
  } else if (v !== null && typeof v === 'object') {
    yield [path, v as Record<string, unknown>];
    for (const [k, x] of Object.entries(v)) yield* nodes(x, `${path}/${k}`);
  }
}

describe('GET /api/openapi.json', () => {
  it('is public: served without credentials, while other /api routes need them', async () => {
    const res = await svc.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect((await svc.app.inject({ method: 'GET', url: '/api/parcels/' })).statusCode).toBe(401);
    expect((await svc.app.inject({ method: 'GET', url: '/api/plants/' })).statusCode).toBe(401);
  });

  it("is OpenAPI '3.0.3' with info.version '0.0.1'", () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('0.0.1');
    expect(doc.info.title.length).toBeGreaterThan(0);
  });

  it('documents every route the app registers under /api, and nothing else', () => {
    const registered = routesOf(svc.app);
    // The parse really read the router: a sample of known routes, each confirmed by the router itself.
    expect(registered).toEqual(expect.arrayContaining(['POST /api/parcels', 'PATCH /api/parcels/:id', 'GET /api/parcels/:id/crops', 'GET /api/plants']));
    for (const r of registered) {
      const [method, url] = r.split(' ') as [string, string];
      expect(svc.app.hasRoute({ method: method as 'GET', url: `${url}/` }) || svc.app.hasRoute({ method: method as 'GET', url }), r).toBe(true);
    }
    const expected = registered
      .filter((r) => r.split(' ')[1]!.startsWith('/api/'))
      .filter((r) => !r.startsWith('HEAD ')) // fastify's automatic HEAD for each GET
      .filter((r) => !UNDOCUMENTED.has(r));
    expect(expected.length).toBeGreaterThan(20);
    expect(documentedRoutes().sort()).toEqual([...new Set(expected)].sort());
  });

  it('writes path parameters as {name}, each declared as a required path parameter', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path, path).not.toMatch(/:\w/);
      expect(path.startsWith('/api/'), path).toBe(true);
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      for (const [method, op] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
        expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual([...names].sort());
        expect(declared.every((p) => p.required === true)).toBe(true);
        expect(Object.keys(op.responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });

  it('documents the plants operation with its search parameter', () => {
    const op = doc.paths['/api/plants/']?.['get'];
    expect(op).toBeDefined();
    expect(op!.parameters?.find((p) => p.name === 'search')?.in).toBe('query');
    expect(op!.responses?.['200']).toBeDefined();
  });

  it('describes the security schemes: x-api-key, the account header and the bearer JWT', () => {
    const s = doc.components.securitySchemes;
    expect(s['apiKey']).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(s['serviceAccount']).toMatchObject({ type: 'apiKey', in: 'header', name: 'Service-Account' });
    expect(s['bearer']).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('declares security on every operation (none document-wide), naming only known schemes', () => {
    expect(doc.security).toBeUndefined();
    const apiKeyOnly: string[] = [];
    for (const [path, method, op] of operations()) {
      expect(op.security, `${method} ${path}`).toBeDefined();
      expect(op.security!.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const req of op.security!) for (const name of Object.keys(req)) expect(doc.components.securitySchemes[name], name).toBeDefined();
      if (!op.security!.some((r) => 'bearer' in r)) apiKeyOnly.push(op.operationId!);
      else expect(op.security).toEqual([{ apiKey: [], serviceAccount: [] }, { apiKey: [] }, { bearer: [] }]);
    }
    // Organization-wide operations: the API key alone (what the service enforces: openapi.responses.test.ts).
    expect(apiKeyOnly.sort()).toEqual(['createAccount', 'createCropFamily', 'deactivateAccount', 'getBilling', 'issueAccountToken']);
  });

  it('names every operation with a unique camelCase operationId', () => {
    const ids = operations().map(([path, method, op]) => op.operationId ?? `missing on ${method} ${path}`);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(30);
  });

  it('declares the metadata[<key>]=<value> filter of GET /api/parcels/ as a deepObject query parameter', () => {
    const metadata = doc.paths['/api/parcels/']!['get']!.parameters!.find((p) => p.name === 'metadata');
    expect(metadata).toMatchObject({ in: 'query', style: 'deepObject', explode: true, required: false, schema: { type: 'object', additionalProperties: { type: 'string' } } });
    // Nowhere else: no other operation reads metadata filters.
    const others = operations().filter(([, , op]) => op.parameters?.some((p) => p.name === 'metadata')).map(([path, method]) => `${method} ${path}`);
    expect(others).toEqual(['get /api/parcels/']);
  });

  it('declares 413 and 415 on every operation that reads a body (POST, PATCH, DELETE), and on no GET', () => {
    for (const [path, method, op] of operations()) {
      const statuses = Object.keys(op.responses ?? {});
      const reads = ['post', 'patch', 'delete'].includes(method);
      expect(statuses.includes('413') && statuses.includes('415'), `${method} ${path}`).toBe(reads);
      for (const common of ['400', '401', '403', '504']) expect(statuses, `${method} ${path}`).toContain(common);
    }
  });

  it("has no type: 'null' anywhere (invalid in 3.0.3), and no other JSON Schema keyword 3.0.3 lacks", () => {
    const bad: string[] = [];
    for (const [path, o] of nodes(doc)) {
      // Objects under `properties` are keyed by field names, which may be anything.
      if (/\/properties$/.test(path)) continue;
      const type = o['type'];
      if (type === 'null' || Array.isArray(type)) bad.push(`${path}: type ${JSON.stringify(type)}`);
      for (const k of ['const', 'prefixItems', '$defs', 'patternProperties', 'unevaluatedProperties', 'dependentRequired', 'if', 'then', 'else', '$schema', '$id']) {
        if (k in o && !path.includes('/examples')) bad.push(`${path}: ${k}`);
      }
      for (const k of ['exclusiveMinimum', 'exclusiveMaximum']) {
        if (k in o && typeof o[k] !== 'boolean') bad.push(`${path}: ${k} ${JSON.stringify(o[k])} is not a boolean`);
      }
    }
    expect(bad).toEqual([]);
    expect(JSON.stringify(doc)).not.toMatch(/"type":\s*"null"/);
  });

  it('keeps the constraints while rewriting them: hectares stays > 0', () => {
    const body = JSON.stringify(doc.paths['/api/parcels/']?.['post']);
    expect(body).toContain('"hectares":{');
    const hectares = [...nodes(doc.paths['/api/parcels/'])].find(([p]) => p.endsWith('/properties/hectares'))?.[1];
    expect(hectares).toMatchObject({ type: 'number', minimum: 0, exclusiveMinimum: true });
  });

  it('resolves every $ref inside the document', () => {
    for (const [path, o] of nodes(doc)) {
      const ref = o['$ref'];
      if (typeof ref !== 'string') continue;
      expect(ref, path).toMatch(/^#\//);
      let target: unknown = doc;
      for (const seg of ref.slice(2).split('/')) target = (target as Record<string, unknown> | undefined)?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
      expect(target, `${path} → ${ref}`).toBeDefined();
    }
  });

  it('leaves the route schemas untouched for later app instances', async () => {
    const again = await startService();
    try {
      const res = await again.app.inject({ method: 'GET', url: '/api/openapi.json' });
      expect(res.json()).toEqual(doc);
    } finally {
      await again.close();
    }
  });
});
