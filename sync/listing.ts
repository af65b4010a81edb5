// A farm's parcel listing, every page of it. The service may page it (`limit`/`after`, an absolute `next`);
// a listing that stops short of its `count` is incomplete, and an incomplete listing proves nothing about the
// parcels it did not reach: the pull deletes nothing from it, and reconciliation after a 504 keeps waiting
// instead of resending parcels that may sit on a page it did not see.
import { ParcelCollection, type ParcelFeature } from '../core/schemas/parcels.ts';
import { expectShape } from '../core/schemas/check.ts';
import { getJson, type AccountCtx } from './context.ts';
import { ListingPage, readListingPage, rememberGeometryTexts } from './listed-geometry.ts';

export interface FarmListing { features: ParcelFeature[]; complete: boolean }

/**
 * Parcels asked per page: at the vertex cap (10,000 positions, about 350 KB of JSON a parcel) a page stays under
 * the client's answer cap (MAX_ANSWER_BYTES, 256 MiB); a typical page is about 1 MB. A service that does not page
 * ignores `limit` (one whole listing) or refuses it with 400 (asked again without it).
 */
export const FARM_PAGE_SIZE = 500;

/** Most pages a farm listing may take, and the parcels a page must add: a `next` that loops or stalls is an error. */
const MAX_LISTING_PAGES = 10_000;

/**
 * Every page of a farm's parcels (the service may page: `next`, absolute or relative, on the same origin). The
 * listing is complete when the last page has no `next` and, where the service gives `count`, all were listed.
 */
export async function farmListing(ctx: AccountCtx, farmId: number): Promise<FarmListing | null> {
  const features: ParcelFeature[] = [];
  const root = ctx.client.baseUrl;
  const seen = new Set<string>();
  const ids = new Set<number>();
  let path: string | null = `/api/farms/${farmId}/parcels/?limit=${FARM_PAGE_SIZE}`;
  let count = 0;
  for (let page = 0; path !== null; page++) {
    if (page >= MAX_LISTING_PAGES) throw new Error(`The listing of farm ${farmId} goes on past ${MAX_LISTING_PAGES} pages`);
    if (seen.has(path)) throw new Error(`The listing of farm ${farmId} loops: ${path} came back`);
    seen.add(path);
    // The page's text is kept for the geometries' (sync/listed-geometry.ts): the mirror stores them as sent.
    let res = await getJson(ctx, path, readListingPage);
    if (res.status === 400 && page === 0) {
      path = `/api/farms/${farmId}/parcels/`;
      res = await getJson(ctx, path, readListingPage);
    }
    if (res.status === 404 && page === 0) return null;
    const read = res.body instanceof ListingPage ? res.body : null;
    const listing: ParcelCollection = expectShape(ParcelCollection, read ? read.value : res.body, 'farm parcels');
    if (read) rememberGeometryTexts(read.text, listing.features);
    // A page repeating parcels under a new `next` is a pager going round: stop at once, not at the page cap.
    for (const f of listing.features) {
      if (ids.has(f.id)) throw new Error(`The listing of farm ${farmId} repeats parcel ${f.id}: its pages loop`);
      ids.add(f.id);
    }
    features.push(...listing.features);
    count = listing.count;
    if (!listing.next) break;
    if (listing.features.length === 0) throw new Error(`The listing of farm ${farmId} has an empty page with a next link`);
    const to: string = new URL(listing.next, `${root}${path}`).href;
    if (!to.startsWith(`${root}/`)) throw new Error(`The listing of farm ${farmId} points away from the service (${awayWords(to, root)})`);
    path = to.slice(root.length);
  }
  return { features, complete: features.length >= count };
}

/**
 * A next link to another address than the service's, in words: it is not followed (the credentials would go with it).
 * Most often the service runs behind a proxy or on another address than its PUBLIC_URL names, which its links carry.
 */
export function awayWords(to: string, root: string): string {
  return `${new URL(to).origin} instead of ${new URL(root).origin}; not followed. If the service is reached through a proxy or another address, ` +
    'its PUBLIC_URL must be the address its clients use';
}
