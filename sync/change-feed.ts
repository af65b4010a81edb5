// The engine's side of the service's change feed (GET /api/changes/, docs/api.md "Changes", an extension of the
// spec): whether the service has it, the cursor a first pull takes BEFORE it lists, and the changes since a cursor.
// A service without it (the hosted original answers 404) is remembered for the run and listed in full, as before.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ChangesPage } from '../core/schemas/changes.ts';
import { expectShape } from '../core/schemas/check.ts';
import { changeCursor } from '../db/pull.ts';
import { serviceError } from './answers.ts';
import { errorMessage } from './http.ts';
import { awayWords } from './listing.ts';
import { AnswerTooLarge, getJson, type AccountCtx } from './context.ts';

export type Change = Static<typeof ChangesPage>['changes'][number];
type Page = Static<typeof ChangesPage>;

/**
 * A page of the feed checked against ChangesPage in two steps: the page with its changes unchecked, then each change
 * against the one member of the schema's union it can match (a farm, parcel, crop or plant changed: the member with
 * its `entity`; a tombstone: `deleted` true), or the whole union when none (so the answer is refused naming it). The
 * members differ in `entity` or `deleted`, so a change matches its member exactly when it matches the union. Why:
 * compiling the whole union (every entity's schema) took 12–18 ms of CPU, most of the checking in an unchanged pull,
 * whose page has no change at all; a member is compiled only once a change needs it.
 */
const PageOnly = Type.Object({ ...ChangesPage.properties, changes: Type.Array(Type.Unknown()) });
const ANY_CHANGE = ChangesPage.properties.changes.items;
const literal = (schema: TSchema, key: string): unknown => (schema.properties as Record<string, { const?: unknown }> | undefined)?.[key]?.const;
const TOMBSTONE = ANY_CHANGE.anyOf.find((m) => literal(m, 'deleted') === true);
const LIVE = ANY_CHANGE.anyOf.filter((m) => literal(m, 'deleted') === false && typeof literal(m, 'entity') === 'string');
// What makes the two steps the same check as the union's; a schema changed otherwise fails here, at load.
if (!TOMBSTONE || LIVE.length !== ANY_CHANGE.anyOf.length - 1 || new Set(LIVE.map((m) => literal(m, 'entity'))).size !== LIVE.length) throw new Error('ChangesPage: a change is an entity changed (its entity, deleted false) or a tombstone (deleted true)');
const memberOf = (change: unknown): TSchema => {
  const c = change as { entity?: unknown; deleted?: unknown } | null;
  if (typeof c !== 'object' || c === null) return ANY_CHANGE;
  if (c.deleted === true) return TOMBSTONE;
  return (c.deleted === false && LIVE.find((m) => literal(m, 'entity') === c.entity)) || ANY_CHANGE;
};

function feedPage(body: unknown): Page {
  const page = expectShape(PageOnly, body, 'change feed');
  page.changes.forEach((change, i) => expectShape(memberOf(change), change, `change feed (change ${i})`));
  return page as Page;
}

/**
 * How this pull goes. 'full': every listing, then the feed resumes at `cursor` (null: the service has no feed);
 * `note` says why a saved cursor was not used. 'changes': only what changed since the saved cursor, up to `cursor`.
 */
export type PullPlan =
  | { mode: 'full'; cursor: string | null; note: string | null }
  | { mode: 'changes'; cursor: string; changes: Change[]; note: null };

/**
 * Changes asked per page: a typical page is ~1 MB. The service ends a page sooner by size (CHANGES_PAGE_BYTES, 16 MiB);
 * one that does not, and answers past the client's answer cap, is asked again for half as many (changesSince).
 */
const CHANGES_PAGE = 1000;
/**
 * Most changes one pull gathers before applying them (they are applied together: the remote-deletion guard weighs every
 * deletion at once). Past it, listing everything costs no more than the changes, and holds a farm at a time: a feed
 * that goes on and on (a service's bug, or a hostile one changing its cursor at every page) ends in a full listing.
 */
export const MAX_FEED_CHANGES = 100_000;

/** Answers that mean "no change feed here": the hosted original of the spec has no such route. */
const NO_FEED = new Set([404, 405, 501]);

/**
 * Where this pull starts: the changes since the saved cursor, or a full listing with a cursor taken first. `listAll`
 * (with its reason): a full listing whatever the cursor (applying held deletions: each is confirmed by the listings).
 */
export async function planPull(ctx: AccountCtx, listAll: string | null = null): Promise<PullPlan> {
  const url = ctx.account.service_url;
  if (ctx.feedless.has(url)) return { mode: 'full', cursor: null, note: null };
  const saved = listAll === null ? changeCursor(ctx.db, ctx.account.id) : null;
  let note: string | null = listAll;
  if (saved !== null) {
    const read = await changesSince(ctx, saved);
    if (read.kind === 'changes') return { mode: 'changes', cursor: read.cursor, changes: read.changes, note: null };
    if (read.kind === 'none') {
      ctx.feedless.add(url);
      return { mode: 'full', cursor: null, note: 'the service no longer offers its change feed: listing everything' };
    }
    note = read.why;
  }
  // The cursor comes BEFORE the listings: a change made while they run is then in them or in the next pull's changes
  // (or both: merging twice is harmless), never in neither.
  const res = await getJson(ctx, '/api/changes/');
  if (res.status !== 200) {
    // 404 is the hosted original; any other refusal also leaves the pull to the listings that always work.
    if (NO_FEED.has(res.status)) ctx.feedless.add(url);
    return { mode: 'full', cursor: null, note };
  }
  return { mode: 'full', cursor: feedPage(res.body).cursor, note };
}

type Read = { kind: 'changes'; cursor: string; changes: Change[] } | { kind: 'none' } | { kind: 'refused'; why: string };

/** Every change since `since`, page after page; 'refused' when the service will not resume there (410, 400, any other refusal). */
async function changesSince(ctx: AccountCtx, since: string): Promise<Read> {
  const root = ctx.client.baseUrl;
  const changes: Change[] = [];
  const askFrom = (cursor: string, limit: number) => `/api/changes/?since=${encodeURIComponent(cursor)}&limit=${limit}`;
  let limit = CHANGES_PAGE;
  let path: string | null = askFrom(since, limit);
  let cursor = since;
  // Every cursor given so far: one coming back means the feed goes round in circles.
  const seen = new Set<string>([since]);
  for (let page = 0; path !== null; page++) {
    let res;
    try {
      res = await getJson(ctx, path);
    } catch (err) {
      if (!(err instanceof AnswerTooLarge)) throw err;
      // A page past the answer cap (a service that does not end pages by size): the same cursor, half as many changes.
      if (limit === 1) throw new Error(`A single change of the change feed is larger than this client takes (${err.message})`);
      limit = Math.ceil(limit / 2);
      path = askFrom(cursor, limit);
      page--;
      continue;
    }
    if (page === 0 && NO_FEED.has(res.status)) return { kind: 'none' };
    if (res.status !== 200) {
      // 410 and 400 are the feed's own refusals of a cursor; any other (a cursor too long for its URL: 414, 431) leaves
      // the pull to the listings too, which take a fresh cursor: never a pull stuck on a cursor the service refuses.
      const code = serviceError(res.body)?.code ?? `HTTP ${res.status}`;
      const why = code === 'cursor_expired' ? 'the change feed no longer goes back to the last pull (cursor_expired)'
        : code === 'invalid_cursor' ? 'the change feed refused the saved cursor (invalid_cursor)' : `the change feed refused the saved cursor (HTTP ${res.status}: ${errorMessage(res)})`;
      return { kind: 'refused', why: `${why}: listing everything again` };
    }
    const body = feedPage(res.body);
    if (body.next !== null && body.changes.length === 0) throw new Error('The change feed has an empty page with a next link');
    if (body.next !== null && seen.has(body.cursor)) throw new Error('The change feed does not advance: a cursor it gave before came back');
    seen.add(body.cursor);
    for (const change of body.changes) changes.push(change);
    if (changes.length > MAX_FEED_CHANGES) {
      return { kind: 'refused', why: `more than ${MAX_FEED_CHANGES.toLocaleString('en')} changes since the last pull: listing everything again` };
    }
    cursor = body.cursor;
    ctx.emit({ phase: 'pull', done: changes.length, total: 0, bytes: ctx.stats.bytes, message: `${changes.length} change${changes.length === 1 ? '' : 's'}` });
    if (body.next === null) break;
    const to: string = new URL(body.next, `${root}${path}`).href;
    if (!to.startsWith(`${root}/`)) throw new Error(`The change feed points away from the service (${awayWords(to, root)})`);
    path = to.slice(root.length);
  }
  return { kind: 'changes', cursor, changes };
}
