import type { FastifyInstance } from 'fastify';
import { RawJson } from './validation-pool.ts';

/**
 * Above this size the bodies of the routes that take parcels are not parsed on arrival: parsing 20 MB of JSON
 * here, then copying the result to a worker, would hold this thread (and every other organization's requests)
 * for most of a second. They stay bytes (RawJson) and the validation pool parses them, one parcel per job.
 */
export const RAW_BODY_BYTES = 256 * 1024;

const RAW_ROUTES = new Set(['POST /api/parcels/', 'POST /api/farms/', 'PATCH /api/parcels/:id/']);

/** Replaces fastify's JSON parser with the same parser for every body but those. */
export function registerJsonParser(app: FastifyInstance): void {
  // The service's settings (see app.ts): "__proto__" and "constructor" keys are ordinary keys.
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length >= RAW_BODY_BYTES && RAW_ROUTES.has(`${req.method} ${req.routeOptions.url}`)) {
      done(null, new RawJson(bytes));
      return;
    }
    parseJson(req, bytes as unknown as string, done);
  });
}
