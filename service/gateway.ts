import type { FastifyInstance } from 'fastify';
import { ErrorCode, errorBody } from '../core/errors.ts';

declare module 'fastify' {
  interface FastifyRequest { gatewayTimer: NodeJS.Timeout | null; startedAt: number }
}

/**
 * Behaves like the gateway in front of the hosted service: past the time limit the client gets 504 while
 * the work goes on and commits. A request waiting (slow upload, injected delay) is answered by the timer;
 * a synchronous write that overran is answered 504 instead of its real response.
 */
export function registerGateway(app: FastifyInstance, limitMs: number): void {
  app.decorateRequest('gatewayTimer', null);
  app.decorateRequest('startedAt', 0);
  if (limitMs <= 0) return;
  const gatewayBody = JSON.stringify(errorBody(ErrorCode.gatewayTimeout, 'Gateway Time-out'));
  app.addHook('onRequest', async (req, reply) => {
    req.startedAt = performance.now();
    if (!req.url.startsWith('/api/')) return;
    req.gatewayTimer = setTimeout(() => {
      if (!reply.sent) {
        reply.hijack();
        reply.raw.writeHead(504, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(gatewayBody) });
        reply.raw.end(gatewayBody);
      }
    }, limitMs);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.gatewayTimer) clearTimeout(req.gatewayTimer);
    if (req.url.startsWith('/api/') && performance.now() - req.startedAt > limitMs && reply.statusCode < 500) {
      reply.code(504).type('application/json; charset=utf-8');
      return gatewayBody;
    }
    return payload;
  });
  app.addHook('onResponse', async (req) => {
    if (req.gatewayTimer) clearTimeout(req.gatewayTimer);
  });
}
