// The headers every response of the service carries, set in one place. The routes of the embedded map and
// of the admin panel add their own (CSP, frame options, referrer policy) on top.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, errorBody } from '../core/errors.ts';

/**
 * - `X-Content-Type-Options: nosniff` on everything: a JSON body that echoes input is never run as a script.
 * - `Cache-Control: no-store` unless the route chose a policy itself: API responses carry account data and
 *   tokens (and errors about them), so no browser, proxy or CDN may keep a copy. The routes that choose
 *   their own are the ones without data: the OpenAPI document, the embedded map's code, the admin stylesheet.
 */
export const BASE_HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' } as const;

export function registerBaseHeaders(app: FastifyInstance): void {
  // A root-level onSend hook runs for every route, every error (the error handler's reply goes through it)
  // and the 404 handler. Responses written raw, outside fastify's reply, set BASE_HEADERS themselves
  // (the gateway's 504 in gateway.ts, clientErrorHandler below).
  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.header('x-content-type-options', BASE_HEADERS['x-content-type-options']);
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', BASE_HEADERS['cache-control']);
    return payload;
  });
}

/**
 * Answers a request Node's HTTP parser could not read (a malformed request line or header, headers too
 * large, a request too slow to arrive) in the service's error format, with the common headers. Replaces
 * fastify's default, which writes its own body without them.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already begun (a refusal sent while the rest of the upload was being discarded): no second one.
  if ((socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = timeout ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message = timeout ? 'The request did not arrive in time (REQUEST_TIMEOUT_MS)' : status === 431 ? 'The request headers are too large' : 'The HTTP request could not be read';
  writeRawAnswer(socket, status, timeout ? ErrorCode.requestTimeout : ErrorCode.validationFailed, message);
  socket.destroy(err);
}

/**
 * Writes a whole answer in the service's error format, with the common headers and `Connection: close`, straight
 * onto a socket that fastify does not answer on (the request could not be read, or was never let in).
 */
export function writeRawAnswer(socket: Socket, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) return;
  const body = JSON.stringify(errorBody(code, message));
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, 'Connection: close', 'Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`];
  for (const [k, v] of Object.entries({ ...BASE_HEADERS, ...headers })) head.push(`${k}: ${v}`);
  socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * Answers what fastify's router refuses before any route, hook or error handler runs (a path that does not
 * percent-decode, a path segment over maxParamLength) in the service's error format, with the common headers.
 * Replaces fastify's default, which writes its own body (echoing the path) without them.
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const status = tooLong ? 414 : 400;
  const message = tooLong ? 'A segment of the URL path is too long' : 'The URL path is not valid percent-encoding';
  void reply.code(status).headers(BASE_HEADERS).type('application/json; charset=utf-8')
    .send(JSON.stringify(errorBody(ErrorCode.validationFailed, message)));
}
