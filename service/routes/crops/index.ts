import type { FastifyInstance } from 'fastify';
import { type Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { IdParams } from '../../../core/schemas/common.ts';
import { Crop, CropCreateRequest, CropListQuery, CropPage, CropPatchRequest } from '../../../core/schemas/crops.ts';
import { respond } from '../../faults.ts';
import { ANY_CREDENTIAL, BODY, NoContent, pageUrl, responses } from '../common.ts';

const tags = ['Crops'];

export default async function crops(app: FastifyInstance, { store, config }: AppContext): Promise<void> {
  app.get('/api/crops/', {
    schema: { operationId: 'listCrops', security: ANY_CREDENTIAL, tags, summary: 'Crops, paginated (count/next/previous/results), filterable by parcel and is_active', querystring: CropListQuery, response: responses({ 200: CropPage }) },
  }, async (req, reply) => {
    const q = req.query as Static<typeof CropListQuery>;
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    const { count, results } = await store.crops.list(req.scope, { parcel: q.parcel, is_active: q.is_active, limit, offset });
    return respond(req, reply, 200, {
      count,
      next: offset + limit < count ? pageUrl(config.publicUrl, req, { offset: offset + limit }) : null,
      previous: offset > 0 ? pageUrl(config.publicUrl, req, { offset: Math.max(0, offset - limit) }) : null,
      results,
    });
  });

  app.post('/api/crops/', {
    schema: { operationId: 'createCrop', security: ANY_CREDENTIAL, tags, summary: 'Create a rotation entry', body: CropCreateRequest, response: responses({ 201: Crop }, BODY) },
  }, async (req, reply) => respond(req, reply, 201, await store.crops.create(req.scope, req.body as Static<typeof CropCreateRequest>)));

  app.get('/api/crops/:id/', { schema: { operationId: 'getCrop', security: ANY_CREDENTIAL, tags, summary: 'One crop', params: IdParams, response: responses({ 200: Crop }, [404]) } },
    async (req, reply) => respond(req, reply, 200, await store.crops.get(req.scope, (req.params as IdParams).id)));

  app.patch('/api/crops/:id/', {
    schema: { operationId: 'updateCrop', security: ANY_CREDENTIAL, tags, summary: 'Update any writable field', params: IdParams, body: CropPatchRequest, response: responses({ 200: Crop }, [404, ...BODY]) },
  }, async (req, reply) => respond(req, reply, 200, await store.crops.patch(req.scope, (req.params as IdParams).id, req.body as Static<typeof CropPatchRequest>)));

  app.delete('/api/crops/:id/', { schema: { operationId: 'deleteCrop', security: ANY_CREDENTIAL, tags, summary: 'Delete a crop', params: IdParams, response: responses({ 204: NoContent }, [404, ...BODY]) } },
    async (req, reply) => {
      await store.crops.delete(req.scope, (req.params as IdParams).id);
      return respond(req, reply, 204, undefined);
    });
}
