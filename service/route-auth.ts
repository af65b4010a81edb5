// Which routes need credentials is declared with the route, never derived from the text of the URL.
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Store } from './store/store.ts';
import type { Scope } from './store/scope.ts';
import { authenticate } from './auth.ts';
import { ApiError } from './errors.ts';
import { ErrorCode } from '../core/errors.ts';

/**
 * How a route authenticates, declared in its config (`config: { auth }`) or for a whole plugin with
 * declareAuth(). A route that declares nothing needs API credentials: forgetting is closed, not open.
 * - credentials: x-api-key (+ account header) or Authorization: Bearer, checked before anything else runs
 * - public: nothing to protect (the OpenAPI document, the health check, the test-only fault switch)
 * - auth_id: the embedded map, whose auth_id query parameter is the credential (service/web/embed/routes.ts)
 * - admin_session: the admin panel's cookie session (service/web/admin/http.ts)
 */
export type RouteAuth = 'credentials' | 'public' | 'auth_id' | 'admin_session';

declare module 'fastify' {
  interface FastifyRequest { scope: Scope }
  interface FastifyContextConfig { auth?: RouteAuth }
}

/** Marks every route the calling plugin registers with how it authenticates. */
export function declareAuth(app: FastifyInstance, auth: RouteAuth): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, auth };
  });
}

/** Whether the operation's declared OpenAPI `security` lists the bearer scheme (routes/common.ts). */
function acceptsBearer(schema: FastifySchema | undefined): boolean {
  const security = (schema as { security?: unknown } | undefined)?.security;
  return Array.isArray(security) && security.some((requirement) => typeof requirement === 'object' && requirement !== null && 'bearer' in requirement);
}

/**
 * Authenticates every request whose matched route needs credentials, before any other hook or the handler
 * reads it, and holds it to the operation's declared `security`: a bearer token on an operation that does not
 * list it (or declares nothing) is 403. Decided by the route the router matched: the router decodes '/%61pi/', takes the absolute form
 * 'GET http://host/api/… HTTP/1.1', and so on, and whatever it matches is what runs. A request no route
 * matches goes to the 404 handler, which runs no handler and reads no data.
 */
export function registerAuthentication(app: FastifyInstance, store: Store, accountHeader: string): void {
  app.decorateRequest('scope', null as unknown as Scope);
  app.addHook('onRequest', async (req) => {
    if (req.is404 || (req.routeOptions.config.auth ?? 'credentials') !== 'credentials') return;
    req.scope = await authenticate(req, store, accountHeader);
    if (req.scope.via === 'bearer' && !acceptsBearer(req.routeOptions.schema)) {
      throw new ApiError(ErrorCode.forbidden, "This operation needs the organization's API key; an account token cannot do it");
    }
  });
}
