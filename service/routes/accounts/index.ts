import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../../context.ts';
import { AccessToken, AccountCreateRequest, AccountParams, AccountSummary, ConnectedAccount } from '../../../core/schemas/accounts.ts';
import { requireApiKey } from '../../auth.ts';
import { accountNotFound } from '../../errors.ts';
import { embeddedUrl, summarize } from '../../store/accounts.ts';
import { signAccountAccess } from '../../store/tokens.ts';
import { respond } from '../../faults.ts';
import { ANY_CREDENTIAL, API_KEY_ONLY, BODY, NoContent, responses } from '../common.ts';

const tags = ['Accounts'];

export default async function accounts(app: FastifyInstance, { store, config }: AppContext): Promise<void> {
  app.post('/api/accounts/', {
    schema: { operationId: 'createAccount', security: API_KEY_ONLY, tags, summary: 'Create a connected account (API key only)', body: AccountCreateRequest, response: responses({ 201: ConnectedAccount }, [409, ...BODY]) },
  }, async (req, reply) => {
    const org = requireApiKey(req.scope, 'Creating an account');
    const a = await store.accounts.create(org, (req.body as Static<typeof AccountCreateRequest>).account_email);
    // Bound to the API key that asked: revoking that key revokes the token.
    const { token } = await signAccountAccess(store, a.id, { apiKeyId: req.scope.apiKeyId });
    return respond(req, reply, 201, { id: a.id, account_email: a.account_email, embedded_url: embeddedUrl(config.embedUrl, a.auth_id), account_access: token });
  });

  app.get('/api/accounts/', {
    schema: { operationId: 'listAccounts', security: ANY_CREDENTIAL, tags, summary: "The organization's accounts, active and deactivated (a bearer token sees only its own)", response: responses({ 200: Type.Array(AccountSummary) }) },
  }, async (req, reply) => {
    const rows = req.scope.via === 'bearer' ? [await store.accounts.getInOrganization(req.scope.organizationId, req.scope.accountId!)] : await store.accounts.list(req.scope.organizationId);
    return respond(req, reply, 200, rows.map((a) => summarize(a, config.embedUrl)));
  });

  app.get('/api/accounts/:id/', {
    schema: { operationId: 'getAccount', security: ANY_CREDENTIAL, tags, summary: 'One account', params: AccountParams, response: responses({ 200: AccountSummary }) },
  }, async (req, reply) => {
    const { id } = req.params as Static<typeof AccountParams>;
    if (req.scope.via === 'bearer' && req.scope.accountId !== id) throw accountNotFound();
    return respond(req, reply, 200, summarize(await store.accounts.getInOrganization(req.scope.organizationId, id), config.embedUrl));
  });

  app.delete('/api/accounts/:id/', {
    schema: { operationId: 'deactivateAccount', security: API_KEY_ONLY, tags, summary: 'Deactivate (soft delete): data kept, access refused, email not reusable', params: AccountParams, response: responses({ 204: NoContent }, BODY) },
  }, async (req, reply) => {
    const org = requireApiKey(req.scope, 'Deactivating an account');
    await store.accounts.deactivate(org, (req.params as Static<typeof AccountParams>).id);
    return respond(req, reply, 204, undefined);
  });

  app.post('/api/accounts/:id/token/', {
    schema: { operationId: 'issueAccountToken', security: API_KEY_ONLY, tags, summary: 'Issue a fresh account_access token (API key only)', params: AccountParams, response: responses({ 200: AccessToken }, BODY) },
  }, async (req, reply) => {
    const org = requireApiKey(req.scope, 'Issuing an account token');
    const a = await store.accounts.getActive(org, (req.params as Static<typeof AccountParams>).id);
    const { token, expiresAt } = await signAccountAccess(store, a.id, { apiKeyId: req.scope.apiKeyId });
    return respond(req, reply, 200, { account_access: token, expires_at: expiresAt });
  });
}
