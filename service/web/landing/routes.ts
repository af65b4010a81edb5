// GET / (the start page) and its stylesheet. Registered by service/app.ts; public (declared below).
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { CSP } from '../admin/http.ts';
import { declareAuth } from '../../route-auth.ts';
import { LANDING_HTML, LOGO_PATH } from './page.ts';

const LANDING_CSS = readFileSync(new URL('./landing.css', import.meta.url), 'utf8');
/** The Furrow leaf of the pages' headers, in the brand green. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#2f7d4f" d="${LOGO_PATH}"/></svg>`;

export default async function landingRoutes(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  // A static page with no account data: nothing to authenticate.
  declareAuth(app, 'public');
  app.addHook('onSend', async (_req, reply, payload) => {
    // The admin panel's policy: no script at all, styles and the form only to this origin, never framed.
    void reply.headers({ 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
    return payload;
  });
  const hide = { schema: { hide: true } };
  app.get('/', hide, async (_req, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(LANDING_HTML));
  app.get('/landing.css', hide, async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(LANDING_CSS));
  app.get('/favicon.svg', hide, async (_req, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON));
  // Browsers ask every site for /favicon.ico (the admin panel and the map too): a 404 there is console noise.
  app.get('/favicon.ico', hide, async (_req, reply) => reply.header('cache-control', 'public, max-age=86400').redirect('/favicon.svg', 301));
}
