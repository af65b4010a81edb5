import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { IdParams, MessageBody } from '../../../core/schemas/common.ts';
import { BulkCreateRequest, ParcelCollection, ParcelFeature, ParcelListQuery, ParcelPatchRequest } from '../../../core/schemas/parcels.ts';
import { Crop } from '../../../core/schemas/crops.ts';
import { PlantCollection } from '../../../core/schemas/plants.ts';
import { CORE_VALIDATED } from '../../validation.ts';
import { bulkCreate, checkParcelPatch, getParcelJson, patchParcel } from '../../store/parcels.ts';
import { DEFAULT_PAGE, metadataFilters, pageRows, parseBbox } from '../../store/parcel-list.ts';
import { featureCollectionJson } from '../../store/parcel-json.ts';
import { listPlantsJson } from '../../store/plants.ts';
import { midBatchHook, respond } from '../../faults.ts';
import { routedRead } from '../../read-routing.ts';
import { ANY_CREDENTIAL, BODY, MetadataFilter, NoContent, pageUrl, responses } from '../common.ts';

const tags = ['Parcels'];

export default async function parcels(app: FastifyInstance, { store, validator, config, reads }: AppContext): Promise<void> {
  app.post('/api/parcels/', {
    bodyLimit: config.parcelBodyLimitBytes,
    schema: {
      operationId: 'createParcels', security: ANY_CREDENTIAL, tags, summary: 'Create 1–50 parcels in one farm, atomically. Not idempotent; a 504 may have committed.',
      description: "201 with the created Features in request order. 200 with {message: 'Missing Farm ID'} means nothing was created. 400 names every invalid parcel by index. Limits: at most 50 parcels; at most 10,000 positions per parcel, all rings together (else 400 invalid_parcels with errors[].code too_many_positions); a body of at most 32 MiB by default (PARCEL_BODY_LIMIT_BYTES; else 413 payload_too_large; other routes take at most 1 MiB, BODY_LIMIT_BYTES), which 50 parcels at the position limit fit.",
      body: { ...BulkCreateRequest, [CORE_VALIDATED]: true },
      response: responses({ 201: Type.Array(ParcelFeature), 200: MessageBody }, [404, ...BODY]),
    },
  }, async (req, reply) => {
    const body = await validator.readBody(req.scope.organizationId, req.body, 'parcels');
    const n = Array.isArray((body as { parcels?: unknown })?.parcels) ? (body as { parcels: unknown[] }).parcels.length : 0;
    const result = await bulkCreate(store, req.scope, body, validator, midBatchHook(req, n));
    // The spec's 200 with a message when the farm id is missing: not a success, nothing processed.
    return result.created ? respond(req, reply, 201, result.json) : respond(req, reply, 200, { message: result.message });
  });

  app.get('/api/parcels/', {
    schema: {
      operationId: 'listParcels', security: ANY_CREDENTIAL, tags, summary: 'Parcels as a FeatureCollection, filtered and paginated',
      description: "Filters: farm, search (in names), bbox, metadata[<key>]=<value> (AND across keys; '+' in a key is a space). Keyset pagination: limit and after; `next` links the next page.",
      querystring: ParcelListQuery, 'x-parameters': [MetadataFilter], response: responses({ 200: ParcelCollection }, [404]),
    },
  }, async (req, reply) => {
    const q = req.query as Record<string, unknown> & { farm?: number; search?: string; bbox?: string; limit?: number; after?: number };
    const limit = q.limit ?? DEFAULT_PAGE;
    const filter = { farm: q.farm, search: q.search, bbox: q.bbox ? parseBbox(q.bbox) : undefined, metadata: metadataFilters(q), limit, after: q.after };
    // The page's rows are read inside the routed read: all from the one database that answered.
    const { count, hasMore, rows } = await routedRead(store, reads, req, reply, async (s) => {
      const page = await s.parcels.list(req.scope, filter);
      return { count: page.count, hasMore: page.hasMore, rows: await pageRows(page) };
    });
    return respond(req, reply, 200, featureCollectionJson(rows, count, hasMore ? pageUrl(config.publicUrl, req, { after: rows[rows.length - 1]!.id }) : null));
  });

  app.get('/api/parcels/:id/', { schema: { operationId: 'getParcel', security: ANY_CREDENTIAL, tags, summary: 'One parcel as a Feature', params: IdParams, response: responses({ 200: ParcelFeature }, [404]) } },
    async (req, reply) => respond(req, reply, 200, await getParcelJson(store, req.scope, (req.params as IdParams).id)));

  app.patch('/api/parcels/:id/', {
    bodyLimit: config.parcelBodyLimitBytes,
    schema: {
      operationId: 'updateParcel', security: ANY_CREDENTIAL, tags, summary: 'Update name, metadata (replaces the whole object) or geometry; revalidated', params: IdParams,
      body: { ...ParcelPatchRequest, [CORE_VALIDATED]: true }, response: responses({ 200: ParcelFeature }, [404, ...BODY]),
    },
  }, async (req, reply) => {
    const id = (req.params as IdParams).id;
    const checked = await checkParcelPatch(store, req.scope, id, req.body, validator);
    return respond(req, reply, 200, await patchParcel(store, req.scope, id, req.body, checked));
  });

  app.delete('/api/parcels/:id/', {
    schema: { operationId: 'deleteParcel', security: ANY_CREDENTIAL, tags, summary: 'Delete a parcel with its crops and plants', params: IdParams, response: responses({ 204: NoContent }, [404, ...BODY]) },
  }, async (req, reply) => {
    await store.parcels.delete(req.scope, (req.params as IdParams).id);
    return respond(req, reply, 204, undefined);
  });

  app.get('/api/parcels/:id/crops/', {
    schema: { operationId: 'listParcelCrops', security: ANY_CREDENTIAL, tags: ['Crops'], summary: "The parcel's whole rotation history, newest sowing first", params: IdParams, response: responses({ 200: Type.Array(Crop) }, [404]) },
  }, async (req, reply) => respond(req, reply, 200, await store.crops.ofParcel(req.scope, (req.params as IdParams).id)));

  app.get('/api/parcels/:id/plants/', {
    schema: { operationId: 'listParcelPlants', security: ANY_CREDENTIAL, tags: ['Plants'], summary: "The parcel's plants", params: IdParams, response: responses({ 200: PlantCollection }, [404]) },
  }, async (req, reply) => respond(req, reply, 200, await listPlantsJson(store, req.scope, { parcel: (req.params as IdParams).id, limit: 1_000_000 })));
}
