// The admin panel's HTTP plumbing: cookies (no @fastify/cookie here), the form body parser, security headers,
// and the session + CSRF gate every route passes through.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../../store/store.ts';
import { declareAuth } from '../../route-auth.ts';
import { csrfMatches, SESSION_MAX_MS, type AdminSession } from '../../store/admins.ts';

export const COOKIE = 'furrow_admin';
const STYLESHEET = '/admin/admin.css';
export const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const FORM_LIMIT_BYTES = 64 * 1024;

/** An error page with a status: thrown by handlers, rendered by the plugin's error handler. */
export class AdminError extends Error {
  constructor(readonly status: number, readonly title: string, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AdminError';
  }
}
export const pageNotFound = (what: string): AdminError => new AdminError(404, `${what} not found`, `There is no such ${what.toLowerCase()} in your organization.`);

declare module 'fastify' {
  interface FastifyRequest { adminSession: AdminSession | null; adminToken: string | null }
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch { /* keep it raw: a malformed cookie simply matches no session */ }
    // The first occurrence wins, as in browsers' own ordering (the most specific path first).
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

export interface CookieOptions { maxAgeSeconds: number; secure: boolean }
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/admin', 'HttpOnly', 'SameSite=Strict', `Max-Age=${opts.maxAgeSeconds}`];
  if (opts.maxAgeSeconds === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}
export const sessionCookie = (token: string, secure: boolean): string => serializeCookie(COOKIE, token, { maxAgeSeconds: SESSION_MAX_MS / 1000, secure });
export const clearCookie = (secure: boolean): string => serializeCookie(COOKIE, '', { maxAgeSeconds: 0, secure });

export type Form = Record<string, string>;
/** The field of a parsed form; '' when it is absent (forms never distinguish the two). */
export const field = (req: FastifyRequest, name: string): string => {
  const body = req.body as Form | undefined;
  return body && Object.hasOwn(body, name) ? body[name]! : '';
};

/**
 * Installs, in the admin plugin's own scope: the urlencoded parser (the JSON API keeps refusing forms), the
 * security headers, and the gate. The gate resolves the session from the cookie; without one a page
 * redirects to sign-in and a POST is refused; a POST with a session must carry its CSRF token.
 */
export function installPlumbing(app: FastifyInstance, store: Store, publicPaths: ReadonlySet<string>, secureCookie: boolean): void {
  // The panel's pages are not part of the API: keep them out of /api/openapi.json. They authenticate with the
  // panel's own session (the gate below), not with API credentials.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  declareAuth(app, 'admin_session');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_req, body, done) => {
    // A null prototype: a field named __proto__ or constructor is just a field.
    const form: Form = Object.create(null) as Form;
    for (const [k, v] of new URLSearchParams(body as string)) if (!Object.hasOwn(form, k)) form[k] = v;
    // As the API (service/nul.ts): no text with U+0000, which the PostgreSQL store cannot hold.
    if (Object.entries(form).some(([k, v]) => k.includes('\u0000') || v.includes('\u0000'))) {
      return done(new AdminError(400, 'Invalid form', 'Text may not contain the NUL character (U+0000).'), undefined);
    }
    done(null, form);
  });

  app.decorateRequest('adminSession', null);
  app.decorateRequest('adminToken', null);

  app.addHook('onSend', async (req, reply, payload) => {
    void reply.header('content-security-policy', CSP);
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('x-frame-options', 'DENY');
    void reply.header('referrer-policy', 'same-origin');
    void reply.header('cross-origin-opener-policy', 'same-origin');
    // Pages carry account emails and, once, a new API key: never cache them. The stylesheet may be cached.
    if (req.routeOptions.url !== STYLESHEET) void reply.header('cache-control', 'no-store');
    return payload;
  });

  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const token = parseCookies(req.headers.cookie).get(COOKIE) ?? '';
    const session = token ? await store.admins.session(token) : undefined;
    req.adminSession = session ?? null;
    req.adminToken = session ? token : null;
    if (req.method === 'POST') {
      // Browsers say where a request comes from; a cross-site POST is refused even before the token is read.
      const site = req.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new AdminError(403, 'Request refused', 'Forms of the admin panel can only be sent from the admin panel itself.');
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        throw new AdminError(415, 'Unsupported form', 'Send the form as application/x-www-form-urlencoded.');
      }
    }
    if (publicPaths.has(req.routeOptions.url ?? '')) return;
    if (!session) {
      if (req.method === 'GET' || req.method === 'HEAD') {
        if (token) void reply.header('set-cookie', clearCookie(secureCookie));
        return reply.redirect('/admin/login', 303);
      }
      throw new AdminError(403, 'Session expired', 'Your session has expired or you have signed out. Sign in again, then repeat the action.');
    }
    if (req.method === 'POST' && !csrfMatches(session, field(req, '_csrf'))) {
      throw new AdminError(403, 'Request refused', 'The form is missing its security token or it does not match your session. Reload the page and try again.');
    }
    return undefined;
  });
}

/** The session of a route behind the gate (it never runs without one). */
export function sessionOf(req: FastifyRequest): AdminSession {
  if (!req.adminSession) throw new AdminError(403, 'Session expired', 'Sign in again.');
  return req.adminSession;
}
