import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { Billing } from '../../../core/schemas/billing.ts';
import { requireApiKey } from '../../auth.ts';
import { respond } from '../../faults.ts';
import { API_KEY_ONLY, responses } from '../common.ts';

export default async function billingRoutes(app: FastifyInstance, { store }: AppContext): Promise<void> {
  app.get('/api/billing/', {
    schema: { operationId: 'getBilling', security: API_KEY_ONLY, tags: ['Billing'], summary: "Billable hectares of the organization, per account, orphan farms included (API key only)", response: responses({ 200: Billing }) },
  }, async (req, reply) => respond(req, reply, 200, await store.billing.of(requireApiKey(req.scope, 'Billing'))));
}
