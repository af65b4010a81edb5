import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { openDb, type Db } from './store/db.ts';
import { configFromEnv, dbFile, type ServiceConfig } from './config.ts';
import { ApiError, registerErrorHandler } from './errors.ts';
import { ErrorCode } from '../core/errors.ts';
import { validatorCompiler } from './validation.ts';
import { authenticate } from './auth.ts';
import { jwtSecret } from './store/tokens.ts';
import { Faults, registerFaults } from './faults.ts';
import { registerGateway } from './gateway.ts';
import type { Scope } from './store/scope.ts';
import { ErrorBody } from '../core/schemas/common.ts';
import { toOpenApi30 } from './openapi.ts';
import { makeValidator, RawJson, type ParcelValidator } from './validation-pool.ts';
import { registerJsonParser } from './raw-body.ts';
import { startCheckpointer } from './store/checkpointer.ts';
import accounts from './routes/accounts/index.ts';
import farms from './routes/farms/index.ts';
import parcels from './routes/parcels/index.ts';
import crops from './routes/crops/index.ts';
import cropFamilies from './routes/crop-families/index.ts';
import plants from './routes/plants/index.ts';
import billingRoutes from './routes/billing/index.ts';
import embedRoutes from './web/embed/routes.ts';
import adminRoutes from './web/admin/routes.ts';

export interface AppContext {
  db: Db;
  config: ServiceConfig;
  secret: Uint8Array;
  validator: ParcelValidator;
}

declare module 'fastify' {
  interface FastifyRequest { scope: Scope }
}

export type App = FastifyInstance;

export interface BuildOptions {
  config?: Partial<ServiceConfig>;
  /** An already open store (tests share one between app instances); otherwise opened from config.dataDir. */
  db?: Db;
  logger?: boolean;
  /** Where log lines go when logger is on (tests capture them); stdout otherwise. */
  logStream?: NodeJS.WritableStream;
}

const PUBLIC_API = new Set(['/api/openapi.json']);

/**
 * The TypeBox schemas are draft-07, where exclusiveMinimum/exclusiveMaximum are numbers; OpenAPI 3.0.3 only
 * knows the draft-04 form (minimum plus exclusiveMinimum: true). Works on a copy: the document may share
 * objects with the route schemas (module-level constants reused by every app instance).
 */
function openapi30Bounds<T>(original: T): T {
  const doc = structuredClone(original);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const [bound, limit] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
        if (typeof o[bound] === 'number') {
          o[limit] = o[bound];
          o[bound] = true;
        }
      }
      Object.values(o).forEach(walk);
    }
  };
  walk(doc);
  return doc;
}

export async function buildApp(opts: BuildOptions = {}): Promise<FastifyInstance> {
  const config: ServiceConfig = { ...configFromEnv(), ...opts.config };
  const db = opts.db ?? openDb(dbFile(config.dataDir), { synchronous: config.synchronous });
  const ctx: AppContext = { db, config, secret: jwtSecret(db), validator: makeValidator(config.validationWorkers) };
  // The service's own database checkpoints off the request thread; a store lent by a test keeps SQLite's default.
  const checkpointer = opts.db ? null : startCheckpointer(db, dbFile(config.dataDir), config.synchronous);

  const app = Fastify({
    logger: opts.logger ? {
      level: config.logLevel,
      // The API key and bearer tokens must never reach a log line.
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', '*.headers["x-api-key"]', '*.headers.authorization', '*.headers.cookie', 'api_key', '*.api_key', 'account_access', '*.account_access'],
        censor: '[redacted]',
      },
      ...(opts.logStream ? { stream: opts.logStream } : {}),
    } : false,
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
    forceCloseConnections: true,
    // "__proto__" and "constructor" are ordinary metadata keys to core/parcels (it copies them with
    // Object.fromEntries), so a batch core calls valid must not be refused as "not valid JSON". JSON.parse
    // only ever defines own properties, and no code here merges request objects into others.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);
  registerErrorHandler(app);
  registerGateway(app, config.gatewayTimeoutMs);

  // Ajv would coerce '1e3', '+1' or '0x10' into integers: a path id must be written as plain digits.
  app.addHook('preValidation', async (req) => {
    const params = req.params as Record<string, unknown> | undefined;
    const id = params?.id;
    if (typeof id === 'string' && !req.url.startsWith('/api/accounts/') && !/^[1-9][0-9]{0,15}$/.test(id)) {
      // A body that is not JSON is answered as such first, as when every body was parsed on arrival.
      if (req.body instanceof RawJson) await ctx.validator.checkSyntax(req.scope.organizationId, req.body);
      throw new ApiError(400, ErrorCode.invalidId, 'The id in the path must be a positive integer', [
        { path: 'params/id', code: 'type', message: `'${id.slice(0, 40)}' is not a positive integer` },
      ]);
    }
  });

  app.decorateRequest('scope', null as unknown as Scope);
  app.addHook('onRequest', async (req) => {
    const path = req.url.split('?')[0]!;
    if (!path.startsWith('/api/') || PUBLIC_API.has(path) || PUBLIC_API.has(path.replace(/\/$/, ''))) return;
    req.scope = await authenticate(req, db, ctx.secret, config.accountHeader);
  });

  if (config.faults) registerFaults(app, new Faults());
  else app.decorateRequest('fault', null);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Agricultural Parcel Management Service API',
        version: '0.0.1',
        description: 'Accounts, farms, parcels, crops, plants and billing. See docs/api.md for the choices made where the contract is silent.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          serviceAccount: { type: 'apiKey', in: 'header', name: 'Service-Account' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
      security: [{ apiKey: [], serviceAccount: [] }, { apiKey: [] }, { bearer: [] }],
    },
    transformObject: (d) => ('openapiObject' in d ? openapi30Bounds(toOpenApi30(d.openapiObject) as typeof d.openapiObject) : d.swaggerObject),
  });
  app.addSchema(ErrorBody);

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));

  await app.register(async (i) => accounts(i, ctx));
  await app.register(async (i) => farms(i, ctx));
  await app.register(async (i) => parcels(i, ctx));
  await app.register(async (i) => crops(i, ctx));
  await app.register(async (i) => cropFamilies(i, ctx));
  await app.register(async (i) => plants(i, ctx));
  await app.register(async (i) => billingRoutes(i, ctx));
  await app.register(async (i) => embedRoutes(i, ctx));
  await app.register(async (i) => adminRoutes(i, ctx), { prefix: '/admin' });

  app.addHook('onClose', async () => {
    await ctx.validator.close();
    await checkpointer?.close();
    if (!opts.db) db.close();
  });
  return app;
}
