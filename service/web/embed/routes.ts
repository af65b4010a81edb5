// The embedded map at {embed_url}/?auth_id=…: the page, its bundle and its two data routes. Outside /api/ on
// purpose: the auth_id in the query is the only credential (no x-api-key, no account id, no JWT), because the
// URL is handed to a browser inside someone else's page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { declareAuth } from '../../route-auth.ts';
import { ErrorCode, errorBody } from '../../../core/errors.ts';
import { MetadataFilterParams } from '../../../core/schemas/common.ts';
import type { AccountRow } from '../../store/accounts.ts';
import { embedBundle, type Asset, type Bundle } from './bundle.ts';
import { embedParcelsJson, embedPlantsJson } from './data.ts';
import { routedRead } from '../../read-routing.ts';
import { INVALID_AUTH, MISSING_AUTH, SHELL_HTML, UNKNOWN_PARAMETER, errorHtml, securityHeaders, type ErrorPage } from './page.ts';

const gzipAsync = promisify(gzip);

/** auth_ids are 32 base64url characters (accounts.ts); the lookup is the real check, this only skips junk. */
const AUTH_ID = /^[A-Za-z0-9_-]{16,128}$/;

/** A 5,000-parcel listing is ~6 MiB of JSON and ~1.5 MiB gzipped: worth it for anything but tiny bodies. */
const COMPRESS_OVER = 32 * 1024;

type Resolved = { account: AccountRow } | { error: ErrorPage };

/**
 * The queries of the page and its data: the auth_id, and for the parcels the metadata filters of GET /api/parcels/.
 * Anything else is refused, as by the API: a misspelt filter ignored would show every parcel. Checked after the
 * auth_id (attachValidation), as the API checks credentials before the request.
 */
const FilteredQuery = Type.Object({ auth_id: Type.Optional(Type.String()) }, { patternProperties: MetadataFilterParams, additionalProperties: false });
const AuthIdQuery = Type.Object({ auth_id: Type.Optional(Type.String()) }, { additionalProperties: false });
const withQuery = (querystring: typeof FilteredQuery | typeof AuthIdQuery) => ({ schema: { hide: true, querystring }, attachValidation: true });

/** Only the `auth_id` query parameter is looked at, and only against accounts.auth_id of an active account. */
async function resolveAccount(ctx: AppContext, query: unknown): Promise<Resolved> {
  const authId = (query as Record<string, unknown> | undefined)?.auth_id;
  if (typeof authId !== 'string' || authId === '') return { error: MISSING_AUTH };
  const account = AUTH_ID.test(authId) ? await ctx.store.accounts.byAuthId(authId) : undefined;
  return account ? { account } : { error: INVALID_AUTH };
}

function acceptsGzip(req: FastifyRequest): boolean {
  const header = req.headers['accept-encoding'];
  if (typeof header !== 'string') return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return coding?.trim() === 'gzip' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

function errorPage(reply: FastifyReply, page: ErrorPage): FastifyReply {
  return reply.code(page.status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(errorHtml(page));
}

function errorJson(reply: FastifyReply, page: ErrorPage): FastifyReply {
  const code = page.status === 404 ? ErrorCode.notFound : ErrorCode.validationFailed;
  return reply.code(page.status).header('cache-control', 'no-store').send(errorBody(code, page.message));
}

/** Account data: never cached anywhere (the link is revocable), gzipped when the browser accepts it. */
async function sendData(req: FastifyRequest, reply: FastifyReply, json: string): Promise<FastifyReply> {
  void reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').header('vary', 'accept-encoding');
  if (json.length > COMPRESS_OVER && acceptsGzip(req)) {
    // zlib's async form runs on the libuv pool: a large account does not block other requests while compressing.
    return reply.header('content-encoding', 'gzip').send(await gzipAsync(json, { level: 4 }));
  }
  return reply.send(json);
}

function assetRoute(pick: (b: Bundle) => Asset) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const a = pick(await embedBundle());
    // Revalidated on every load (ETag → 304) so a new service version is picked up at once.
    void reply.type(a.type).header('cache-control', 'no-cache').header('etag', a.etag).header('vary', 'accept-encoding');
    if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
    return acceptsGzip(req) ? reply.header('content-encoding', 'gzip').send(a.gzip) : reply.send(a.body);
  };
}

export default async function embedRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Computed (and EMBED_FRAME_ANCESTORS validated) at start-up: a bad value stops the service instead of weakening the CSP.
  const headers = securityHeaders(ctx.config.embedFrameAncestors);
  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.headers(headers);
    return payload;
  });
  declareAuth(app, 'auth_id');
  const hide = { schema: { hide: true } };

  app.get('/embed/', withQuery(FilteredQuery), async (req, reply) => {
    // The page loads app.js and data/… relative to itself: '/embed' without the slash would resolve them at '/'.
    // The target is the route's own path: nothing of the request line (an absolute-form host, say) goes into it.
    const { pathname, search } = new URL(req.url, 'http://service.invalid');
    if (!pathname.endsWith('/')) return reply.redirect(`${req.routeOptions.url}${search}`, 308);
    const r = await resolveAccount(ctx, req.query);
    if ('error' in r) return errorPage(reply, r.error);
    if (req.validationError) return errorPage(reply, UNKNOWN_PARAMETER);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(SHELL_HTML);
  });

  app.get('/embed/app.js', hide, assetRoute((b) => b.js));
  app.get('/embed/app.css', hide, assetRoute((b) => b.css));

  app.get('/embed/data/parcels', withQuery(FilteredQuery), async (req, reply) => {
    const r = await resolveAccount(ctx, req.query);
    if ('error' in r) return errorJson(reply, r.error);
    if (req.validationError) throw req.validationError;
    return sendData(req, reply, await routedRead(ctx.store, ctx.reads, req, reply, (s) => embedParcelsJson(s, r.account, req.query as Record<string, unknown>)));
  });

  app.get('/embed/data/plants', withQuery(AuthIdQuery), async (req, reply) => {
    const r = await resolveAccount(ctx, req.query);
    if ('error' in r) return errorJson(reply, r.error);
    if (req.validationError) throw req.validationError;
    return sendData(req, reply, await routedRead(ctx.store, ctx.reads, req, reply, (s) => embedPlantsJson(s, r.account)));
  });
}
