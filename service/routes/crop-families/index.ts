import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { CropFamily, CropFamilyCreateRequest } from '../../../core/schemas/crops.ts';
import { requireApiKey } from '../../auth.ts';
import { respond } from '../../faults.ts';
import { ANY_CREDENTIAL, API_KEY_ONLY, BODY, responses } from '../common.ts';

const tags = ['Crops'];

export default async function cropFamilies(app: FastifyInstance, { store }: AppContext): Promise<void> {
  app.get('/api/crop-families/', {
    schema: { operationId: 'listCropFamilies', security: ANY_CREDENTIAL, tags, summary: "Crop families: the shared botanical ones and the organization's own", response: responses({ 200: Type.Array(CropFamily) }) },
  }, async (req, reply) => respond(req, reply, 200, await store.cropFamilies.list(req.scope.organizationId)));

  app.post('/api/crop-families/', {
    schema: { operationId: 'createCropFamily', security: API_KEY_ONLY, tags, summary: 'Add a crop family to the organization (API key only)', body: CropFamilyCreateRequest, response: responses({ 201: CropFamily }, [409, ...BODY]) },
  }, async (req, reply) => {
    // Organization-wide data, like accounts and billing: an account's bearer token cannot add to it.
    const org = requireApiKey(req.scope, 'Adding a crop family');
    const b = req.body as Static<typeof CropFamilyCreateRequest>;
    return respond(req, reply, 201, await store.cropFamilies.create(org, b.name, b.observation ?? ''));
  });
}
