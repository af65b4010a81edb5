import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { IdParams } from '../../../core/schemas/common.ts';
import { Farm, FarmCreateRequest, FarmCreateResponse, FarmPatchRequest } from '../../../core/schemas/farms.ts';
import { FarmParcelsQuery, ParcelCollection } from '../../../core/schemas/parcels.ts';
import { CORE_VALIDATED } from '../../validation.ts';
import { ApiError } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { createFarm, validateFarmParcels } from '../../store/farms.ts';
import { syntaxFirst } from '../../validation-pool.ts';
import { farmParcelsBody } from '../../store/farm-listing.ts';
import { featureArrayBody } from '../../store/parcel-json.ts';
import { respond } from '../../faults.ts';
import { routedRead } from '../../read-routing.ts';
import { ANY_CREDENTIAL, BODY, NoContent, pageUrl, responses } from '../common.ts';

const tags = ['Farms'];

function farmBody(body: unknown): { farm: { name: string }; parcels?: unknown[] } {
  const fail = (message: string, path: string, code = 'invalid') => new ApiError(ErrorCode.validationFailed, message, [{ path, code, message }]);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fail('The body must be a JSON object with farm and parcels', 'body');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (k !== 'farm' && k !== 'parcels') throw fail(`unknown field '${k}'`, `body/${k}`, 'unknown_field');
  const farm = b.farm;
  if (typeof farm !== 'object' || farm === null || Array.isArray(farm)) throw fail('farm must be an object with a name', 'body/farm');
  for (const k of Object.keys(farm)) if (k !== 'name') throw fail(`unknown field '${k}' in farm`, `body/farm/${k}`, 'unknown_field');
  if (b.parcels !== undefined && !Array.isArray(b.parcels)) throw fail('parcels must be an array', 'body/parcels');
  return { farm: farm as { name: string }, parcels: b.parcels as unknown[] | undefined };
}

export default async function farms(app: FastifyInstance, { store, config, validator, reads }: AppContext): Promise<void> {
  app.post('/api/farms/', {
    bodyLimit: config.parcelBodyLimitBytes,
    schema: {
      operationId: 'createFarm', security: ANY_CREDENTIAL, tags, summary: 'Create a farm with up to 50 parcels, atomically (acts for the account in the header or token)',
      description: 'Parcels are validated as in POST /api/parcels/. Limits: at most 50 parcels; at most 10,000 positions per parcel, all rings together (else 400 invalid_parcels with errors[].code too_many_positions); a body of at most 32 MiB by default (PARCEL_BODY_LIMIT_BYTES; else 413 payload_too_large; other routes take at most 1 MiB, BODY_LIMIT_BYTES), which 50 parcels at the position limit fit.',
      body: { ...FarmCreateRequest, [CORE_VALIDATED]: true }, response: responses({ 201: FarmCreateResponse }, BODY),
    },
  }, async (req, reply) => {
    const org = req.scope.organizationId;
    const body = await validator.readBody(org, req.body, 'parcels');
    const input = await syntaxFirst(validator, org, body, () => farmBody(body));
    const { farm, rows } = await createFarm(store, req.scope, input, await validateFarmParcels(store, req.scope, input, validator));
    return respond(req, reply, 201, featureArrayBody(rows, `${JSON.stringify(farm).slice(0, -1)},"parcels":[`, ']}'));
  });

  app.get('/api/farms/', { schema: { operationId: 'listFarms', security: ANY_CREDENTIAL, tags, summary: 'Farms visible to the caller', response: responses({ 200: Type.Array(Farm) }) } },
    async (req, reply) => respond(req, reply, 200, await routedRead(store, reads, req, reply, (s) => s.farms.list(req.scope))));

  app.get('/api/farms/:id/', { schema: { operationId: 'getFarm', security: ANY_CREDENTIAL, tags, summary: 'One farm', params: IdParams, response: responses({ 200: Farm }, [404]) } },
    async (req, reply) => respond(req, reply, 200, await store.farms.get(req.scope, (req.params as IdParams).id)));

  app.patch('/api/farms/:id/', {
    schema: { operationId: 'renameFarm', security: ANY_CREDENTIAL, tags, summary: 'Rename a farm', params: IdParams, body: FarmPatchRequest, response: responses({ 200: Farm }, [404, ...BODY]) },
  }, async (req, reply) => respond(req, reply, 200, await store.farms.rename(req.scope, (req.params as IdParams).id, (req.body as Static<typeof FarmPatchRequest>).name)));

  app.delete('/api/farms/:id/', {
    schema: { operationId: 'deleteFarm', security: ANY_CREDENTIAL, tags, summary: 'Delete a farm with its parcels, crops and plants', params: IdParams, response: responses({ 204: NoContent }, [404, ...BODY]) },
  }, async (req, reply) => {
    await store.farms.delete(req.scope, (req.params as IdParams).id);
    return respond(req, reply, 204, undefined);
  });

  app.get('/api/farms/:id/parcels/', {
    schema: {
      operationId: 'listFarmParcels', security: ANY_CREDENTIAL, tags, summary: "Every parcel of the farm (what to check after a 504 before resending)", params: IdParams, querystring: FarmParcelsQuery,
      description: 'Without limit: every parcel, by id, streamed from one consistent snapshot (any size; count at the end, next null). With limit (and after): one page, count = all parcels of the farm, next = absolute URL of the next page or null.',
      response: responses({ 200: ParcelCollection }, [404]),
    },
  }, async (req, reply) => {
    // The gateway answered 504 while the request waited (an injected delay): a read has nothing left to do.
    if (reply.sent) return reply;
    const q = req.query as Static<typeof FarmParcelsQuery>;
    const listing = await routedRead(store, reads, req, reply, (s) => s.farms.openParcelListing(req.scope, (req.params as IdParams).id, q));
    // Answered 504 while the snapshot was opening: nobody will read it.
    if (reply.sent) {
      await listing.close();
      return reply;
    }
    const body = farmParcelsBody(listing, q, (after) => pageUrl(config.publicUrl, req, { after }));
    // The snapshot lives as long as the response: sent, aborted, dropped by a fault or replaced by the gateway's 504.
    reply.raw.once('close', () => body.destroy());
    // A client that takes nothing for this long would pin the snapshot, and with it the WAL: it is cut off.
    reply.raw.setTimeout(config.stallTimeoutMs, () => reply.raw.destroy());
    void reply.type('application/json; charset=utf-8');
    return respond(req, reply, 200, body);
  });
}
