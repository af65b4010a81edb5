import Fastify, { type FastifyInstance, type FastifySchema } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { openReadReplica, openStore } from './store/open.ts';
import { registerWriteLsn } from './read-routing.ts';
import type { Store } from './store/store.ts';
import { configFromEnv, type ServiceConfig } from './config.ts';
import { ApiError, registerErrorHandler } from './errors.ts';
import { ErrorCode } from '../core/errors.ts';
import { strictQueries, validatorCompiler } from './validation.ts';
import { registerAuthentication } from './route-auth.ts';
import { clientErrorHandler, frameworkErrors, registerBaseHeaders } from './headers.ts';
import { serverTimeouts, turnAway } from './connections.ts';
import { boundConnections } from '../platform/node/connections.ts';
import { Faults, injectFaults, registerFaultRoutes, type FaultBook } from './faults.ts';
import { PgFaults } from './store/postgres/faults.ts';
import type { PgStore } from './store/postgres/index.ts';
import { registerGateway } from './gateway.ts';
import { registerCompression } from './compression.ts';
import { ErrorBody } from '../core/schemas/common.ts';
import { registerOpenApi } from './openapi.ts';
import { makeValidator, RawJson, type ParcelValidator } from './validation-pool.ts';
import { registerJsonParser } from './raw-body.ts';
import { registerNulGuard } from './nul.ts';
import { CENSOR, REDACT_PATHS, scrubLogLine, serializeRequest } from './log-redaction.ts';
import accounts from './routes/accounts/index.ts';
import organization from './routes/organization/index.ts';
import farms from './routes/farms/index.ts';
import parcels from './routes/parcels/index.ts';
import crops from './routes/crops/index.ts';
import cropFamilies from './routes/crop-families/index.ts';
import plants from './routes/plants/index.ts';
import billingRoutes from './routes/billing/index.ts';
import changes from './routes/changes/index.ts';
import embedRoutes from './web/embed/routes.ts';
import adminRoutes from './web/admin/routes.ts';
import landingRoutes from './web/landing/routes.ts';

export type { AppContext } from './context.ts';
import type { AppContext } from './context.ts';

export type App = FastifyInstance;

export interface BuildOptions {
  config?: Partial<ServiceConfig>;
  /** An already open store (tests share one between app instances), left open; otherwise opened from the config and closed with the app. */
  store?: Store;
  logger?: boolean;
  /** Where log lines go when logger is on (tests capture them); stdout otherwise. */
  logStream?: NodeJS.WritableStream;
  /**
   * A validation pool lent by a test (which watches its jobs and closes it); otherwise one of
   * config.validationWorkers threads, closed with the app.
   */
  validator?: ParcelValidator;
}

/** A route whose `id` path parameter is declared an integer (the account routes' ids are strings). */
const integerId = (schema: FastifySchema | undefined): boolean =>
  ((schema?.params as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties?.id?.type) === 'integer';

export async function buildApp(opts: BuildOptions = {}): Promise<FastifyInstance> {
  const config: ServiceConfig = { ...configFromEnv(), ...opts.config };
  // The service's own store does its background maintenance (SQLite: checkpoints off the request thread); a store
  // lent by a test does not.
  const store = opts.store ?? await openStore(config, { serving: true });
  const reads = await openReadReplica(config, store, (why) => process.stderr.write(why ? `Reads from the standby stop: ${why}\n` : 'Reads from the standby resume\n'));
  const ctx: AppContext = { store, config, validator: opts.validator ?? makeValidator(config.validationWorkers), reads };

  const app = Fastify({
    logger: opts.logger ? {
      level: config.logLevel,
      // No credential may reach a log line, at any level: the auth_id in the embedded map's URLs, API keys,
      // bearer tokens, the admin panel's cookie, CSRF token and password (log-redaction.ts says how).
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      serializers: { req: serializeRequest },
      hooks: { streamWrite: scrubLogLine },
      ...(opts.logStream ? { stream: opts.logStream } : {}),
    } : false,
    bodyLimit: config.bodyLimitBytes,
    ...serverTimeouts(config.connections),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
    forceCloseConnections: true,
    clientErrorHandler,
    frameworkErrors,
    // "__proto__" and "constructor" are ordinary metadata keys to core/parcels (it copies them with
    // Object.fromEntries), so a batch core calls valid must not be refused as "not valid JSON". JSON.parse
    // only ever defines own properties, and no code here merges request objects into others.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
  }).withTypeProvider<TypeBoxTypeProvider>();

  boundConnections(app.server, config.connections, turnAway, (line) => app.log.warn(line));
  app.setValidatorCompiler(validatorCompiler);
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);
  registerErrorHandler(app);
  registerNulGuard(app);

  // Ajv would coerce '1e3', '+1' or '0x10' into integers: a path id must be written as plain digits.
  app.addHook('preValidation', async (req) => {
    // A bulk create's body of ordinary size, not parsed on arrival (raw-body.ts), is answered as not JSON before its
    // query string is checked, as when it was parsed on arrival.
    if (req.body instanceof RawJson && req.body.bulk && Object.keys(req.query ?? {}).length > 0) {
      await ctx.validator.checkSyntax(req.scope.organizationId, req.body);
    }
    const params = req.params as Record<string, unknown> | undefined;
    const id = params?.id;
    if (typeof id === 'string' && integerId(req.routeOptions.schema) && !/^[1-9][0-9]{0,15}$/.test(id)) {
      // A body that is not JSON is answered as such first, as when every body was parsed on arrival.
      if (req.body instanceof RawJson) await ctx.validator.checkSyntax(req.scope.organizationId, req.body);
      throw new ApiError(ErrorCode.invalidId, 'The id in the path must be a positive integer', [
        { path: 'params/id', code: 'type', message: `'${id.slice(0, 40)}' is not a positive integer` },
      ]);
    }
  });

  registerBaseHeaders(app);
  registerAuthentication(app, store, config.accountHeader);

  // FAULTS=database: the rules are in the database, every process behind a balancer shares them (store/postgres/faults.ts).
  const pgPool = (store as Partial<PgStore>).pool;
  if (config.faultsShared && !pgPool) throw new Error('FAULTS=database needs the PostgreSQL store (DATABASE_URL)');
  const faults: FaultBook | null = !config.faults ? null : config.faultsShared ? await PgFaults.open(pgPool!) : new Faults();
  app.decorateRequest('fault', null);
  if (faults) registerFaultRoutes(app, faults);

  await registerOpenApi(app, config);
  app.addSchema(ErrorBody);

  // The same for everyone and free of account data: the one API response a cache may keep. Compressed like the API's
  // answers (135 KB of JSON), in a context of its own: the gateway and the faults stay on the API's routes only.
  await app.register(async (doc) => {
    registerCompression(doc);
    doc.get('/api/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async (_req, reply) =>
      reply.header('cache-control', 'public, max-age=300').send(app.swagger()));
  });
  app.get('/healthz', { schema: { hide: true }, config: { auth: 'public' } }, async () => ({ ok: true }));

  // The API: every route here needs credentials (the default). The gateway and the fault switch act on these only.
  await app.register(async (api) => {
    registerGateway(api, config.gatewayTimeoutMs);
    registerCompression(api);
    registerWriteLsn(api, reads);
    if (faults) injectFaults(api, faults);
    strictQueries(api);
    await api.register(async (i) => accounts(i, ctx));
    await api.register(async (i) => organization(i, ctx));
    await api.register(async (i) => farms(i, ctx));
    await api.register(async (i) => parcels(i, ctx));
    await api.register(async (i) => crops(i, ctx));
    await api.register(async (i) => cropFamilies(i, ctx));
    await api.register(async (i) => plants(i, ctx));
    await api.register(async (i) => billingRoutes(i, ctx));
    if (config.changeFeed) await api.register(async (i) => changes(i, ctx));
  });
  await app.register(async (i) => embedRoutes(i, ctx));
  await app.register(async (i) => adminRoutes(i, ctx), { prefix: '/admin' });
  await app.register(async (i) => landingRoutes(i, ctx));

  // What the admin CLI builds embedded_url from when run on this DATA_DIR without the service's environment.
  app.addHook('onListen', async () => { await store.servedUrls.record(config); });
  app.addHook('onClose', async () => {
    if (!opts.validator) await ctx.validator.close();
    await reads?.close();
    if (!opts.store) await store.close();
  });
  return app;
}
