import type { FastifyInstance } from 'fastify';
import { ErrorCode, errorBody } from '../core/errors.ts';
import { BASE_HEADERS } from './headers.ts';

declare module 'fastify' {
  interface FastifyRequest { gatewayTimer: NodeJS.Timeout | null; startedAt: number }
}

/**
 * Behaves like the gateway in front of the hosted service: past the time limit the client gets 504 while
 * the work goes on and commits. A request waiting (slow upload, injected delay) is answered by the timer;
 * a synchronous write that overran is answered 504 instead of its real response. Registered inside the API's
 * plugin scope (app.ts), so it times exactly the API routes, whatever the spelling of the URL.
 */
export function registerGateway(app: FastifyInstance, limitMs: number): void {
  app.decorateRequest('gatewayTimer', null);
  app.decorateRequest('startedAt', 0);
  if (limitMs <= 0) return;
  const gatewayBody = JSON.stringify(errorBody(ErrorCode.gatewayTimeout, 'Gateway Time-out'));
  app.addHook('onRequest', async (req, reply) => {
    req.startedAt = performance.now();
    req.gatewayTimer = setTimeout(() => {
      if (!reply.sent) {
        reply.hijack();
        // Written raw (the reply is hijacked), so the headers every response carries (app.ts) are set here too.
        reply.raw.writeHead(504, {
          'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(gatewayBody), ...BASE_HEADERS,
        });
        reply.raw.end(gatewayBody);
      }
    }, limitMs);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.gatewayTimer) clearTimeout(req.gatewayTimer);
    // startedAt is 0 when the request was refused before the gateway's onRequest ran (authentication, app.ts).
    if (req.startedAt > 0 && performance.now() - req.startedAt > limitMs && reply.statusCode < 500) {
      reply.code(504).type('application/json; charset=utf-8');
      return gatewayBody;
    }
    return payload;
  });
  app.addHook('onResponse', async (req) => {
    if (req.gatewayTimer) clearTimeout(req.gatewayTimer);
  });
}
