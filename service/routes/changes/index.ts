import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ChangesPage, ChangesQuery, CHANGES_DEFAULT_LIMIT } from '../../../core/schemas/changes.ts';
import { changesJson, readChanges } from '../../store/changes.ts';
import { requireAccount } from '../../store/scope.ts';
import { nowMs } from '../../store/clock.ts';
import { respond } from '../../faults.ts';
import { ANY_CREDENTIAL, pageUrl, responses } from '../common.ts';

// An extension of the spec: the hosted original has no such route, so a client treats its 404 as "not offered" and
// falls back to full listings.
export default async function changes(app: FastifyInstance, { store, config }: AppContext): Promise<void> {
  app.get('/api/changes/', {
    schema: {
      operationId: 'listChanges', security: ANY_CREDENTIAL, tags: ['Changes'],
      summary: "The account's farms, parcels, crops and plants changed or deleted since a cursor (an extension of the spec)",
      description: 'Without `since`: the current cursor and no change (take it BEFORE a full listing). With it: every object changed since, ' +
        'each once, as its own GET answers it now, deletions as tombstones {entity, id, deleted: true}; `cursor` to resume from, ' +
        '`next` while more remain (a page ends early where its objects would pass CHANGES_PAGE_BYTES, 16 MiB by default). One account only (the account header or a bearer token; the bare API key is 400 account_required). ' +
        `Tombstones are kept CHANGE_HORIZON_DAYS (30 days by default): an older cursor is 410 cursor_expired (list everything again); ` +
        "a malformed cursor or another account's is 400 invalid_cursor.",
      querystring: ChangesQuery, response: responses({ 200: ChangesPage }, [410]),
    },
  }, async (req, reply) => {
    const q = req.query as ChangesQuery;
    const accountId = requireAccount(req.scope, 'The change feed');
    const page = await readChanges(store, req.scope, accountId, q.since, q.limit ?? CHANGES_DEFAULT_LIMIT, config.changeHorizonSeconds, nowMs(), config.changesPageBytes);
    return respond(req, reply, 200, changesJson(page, page.more ? pageUrl(config.publicUrl, req, { since: page.cursor }) : null));
  });
}
