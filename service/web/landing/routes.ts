// GET / (the start page) and its stylesheet. Registered by service/app.ts; outside /api/, no authentication.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.ts';
import { CSP } from '../admin/http.ts';
import { LANDING_HTML } from './page.ts';

const LANDING_CSS = readFileSync(new URL('./landing.css', import.meta.url), 'utf8');

export default async function landingRoutes(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  app.addHook('onSend', async (_req, reply, payload) => {
    // The admin panel's policy: no script at all, styles and the form only to this origin, never framed.
    void reply.headers({ 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
    return payload;
  });
  const hide = { schema: { hide: true } };
  app.get('/', hide, async (_req, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(LANDING_HTML));
  app.get('/landing.css', hide, async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(LANDING_CSS));
}
