import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorCodes } from 'fastify';
import { RawJson } from './validation-pool.ts';
import { hasNulEscape, nulRefused } from './nul.ts';

/**
 * From this size on, the bodies of the routes that take parcels are not parsed on arrival: parsing 20 MB of JSON
 * here, then copying the result to a worker, would hold this thread (and every other organization's requests)
 * for most of a second. They stay bytes (RawJson) and the validation pool parses them, one parcel per job.
 */
export const RAW_BODY_BYTES = 256 * 1024;

const RAW_ROUTES = new Set(['POST /api/parcels/', 'POST /api/farms/', 'PATCH /api/parcels/:id/']);

/**
 * The bulk create's bodies of every size stay bytes too: one job on the pool parses a body of ordinary size and
 * validates its parcels (RawJson `bulk`). Parsed here, a 50-parcel batch of 45 KiB (bench/service-bulk.ts) cost this
 * thread ~0.35 ms to parse and ~0.33 ms to copy the parsed parcels to a worker (structured clone), which then took
 * ~0.5 ms to read them back: the parse moved to the worker, the copy is gone (~0.8 of ~7.5 ms of CPU per batch).
 */
const BULK_ROUTE = 'POST /api/parcels/';

/**
 * Replaces fastify's JSON body reader and parser with the same for every body but those, whose bytes go as they
 * arrive into memory the validation workers share: no single copy of 20 MB (into freshly mapped memory, slow on
 * a virtual machine) holds the thread. Limits and errors are fastify's own (413 past the route's body limit, 400
 * when the length differs from Content-Length).
 */
export function registerJsonParser(app: FastifyInstance): void {
  // The service's settings (see app.ts): "__proto__" and "constructor" keys are ordinary keys.
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.addContentTypeParser('application/json', (req, payload, done) => {
    readBody(req, payload, (err, bytes) => {
      if (err) return done(err, undefined);
      // A NUL is refused first (service/nul.ts), whether or not the rest is JSON: a large body is parsed later, by
      // the validation pool, and a small one must be answered as a large one would be.
      if (hasNulEscape(bytes!)) return done(nulRefused('body'), undefined);
      if (bytes!.length >= RAW_BODY_BYTES && rawRoute(req)) return done(null, new RawJson(bytes!));
      // An empty body goes to fastify's parser, whose error for it is its own (FST_ERR_CTP_EMPTY_JSON_BODY).
      if (bytes!.length > 0 && routeKey(req) === BULK_ROUTE) return done(null, new RawJson(bytes!, true));
      parseJson(req, bytes as unknown as string, done);
    });
  });
}

const routeKey = (req: FastifyRequest) => `${req.method} ${req.routeOptions.url}`;
const rawRoute = (req: FastifyRequest) => RAW_ROUTES.has(routeKey(req));

function readBody(req: FastifyRequest, payload: NodeJS.ReadableStream & { receivedEncodedLength?: number }, done: (err: Error | null, bytes?: Uint8Array) => void): void {
  const limit = req.routeOptions.bodyLimit ?? Infinity;
  const contentLength = Number(req.headers['content-length']);
  if (contentLength > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  // A large body announced by its length goes straight into shared memory, one chunk at a time.
  const shared = contentLength >= RAW_BODY_BYTES && rawRoute(req) ? new Uint8Array(new SharedArrayBuffer(contentLength)) : null;
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  function onData(data: Buffer | string): void {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    if (shared !== null && received + chunk.length <= shared.length) shared.set(chunk, received);
    else chunks.push(chunk);
    received += chunk.length;
    if (received > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      stop();
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    }
  }
  function onEnd(err?: Error & { statusCode?: number }): void {
    stop();
    if (err) {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      return done(err);
    }
    if (!Number.isNaN(contentLength) && (payload.receivedEncodedLength || received) !== contentLength) {
      return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    }
    done(null, shared ?? Buffer.concat(chunks, received));
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}
