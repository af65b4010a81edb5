import type { FastifyInstance } from 'fastify';
import { type Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { IdParams } from '../../../core/schemas/common.ts';
import { PlantCollection, PlantFeature, PlantListQuery } from '../../../core/schemas/plants.ts';
import { getPlantJson, listPlantsJson } from '../../store/plants.ts';
import { respond } from '../../faults.ts';
import { ANY_CREDENTIAL, pageUrl, responses } from '../common.ts';

const tags = ['Plants'];

export default async function plants(app: FastifyInstance, { store, config }: AppContext): Promise<void> {
  app.get('/api/plants/', {
    schema: {
      operationId: 'listPlants', security: ANY_CREDENTIAL, tags, summary: 'Plants as a FeatureCollection', description: 'search matches a plant key or text in its info; parcel limits to one parcel (as does GET /api/parcels/{id}/plants/). Keyset pagination: limit and after; `next` is the absolute URL of the next page, or null.',
      querystring: PlantListQuery, response: responses({ 200: PlantCollection }, [404]),
    },
  }, async (req, reply) => {
    const q = req.query as Static<typeof PlantListQuery>;
    const page = { search: q.search, parcel: q.parcel, after: q.after, limit: q.limit ?? 10_000 };
    return respond(req, reply, 200, await listPlantsJson(store, req.scope, page, (after) => pageUrl(config.publicUrl, req, { after })));
  });

  app.get('/api/plants/:id/', { schema: { operationId: 'getPlant', security: ANY_CREDENTIAL, tags, summary: 'One plant', params: IdParams, response: responses({ 200: PlantFeature }, [404]) } },
    async (req, reply) => respond(req, reply, 200, await getPlantJson(store, req.scope, (req.params as IdParams).id)));
}
