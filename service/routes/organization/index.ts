// GET /api/organization/ (our extension, core/schemas/organization.ts): the organization a credential speaks for.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { OrganizationInfo } from '../../../core/schemas/organization.ts';
import { organizationNotFound } from '../../store/organizations.ts';
import { respond } from '../../faults.ts';
import { ANY_CREDENTIAL, responses } from '../common.ts';

const tags = ['Accounts'];

export default async function organization(app: FastifyInstance, { store }: AppContext): Promise<void> {
  app.get('/api/organization/', {
    schema: {
      operationId: 'getOrganization', security: ANY_CREDENTIAL, tags,
      summary: 'The organization the credential speaks for: its id and name (an extension: not in the spec)',
      response: responses({ 200: OrganizationInfo }),
    },
  }, async (req, reply) => {
    const org = await store.organizations.get(req.scope.organizationId);
    if (!org) throw organizationNotFound();
    return respond(req, reply, 200, { id: org.id, name: org.name });
  });
}
