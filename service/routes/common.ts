import type { FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorBody } from '../../core/schemas/common.ts';

const ErrorRef = Type.Ref(ErrorBody);

/**
 * What every API operation can answer besides its own: 400 (a malformed request; x-api-key and a bearer token
 * together), 401 (no, bad or revoked credentials), 403 ('Account not found', or a bearer token on an API-key-only
 * operation), 408 (the request did not arrive whole in time), 414 and 431 (a path segment or the headers too long for
 * the request to be read), 500 (a failure the service did not foresee: a bug, reported as such), 503 (too many
 * connections or files open: nothing was done, with Retry-After) and 504 (the gateway's time limit: the work may
 * still commit).
 */
const EVERY_OPERATION = [400, 401, 403, 408, 414, 431, 500, 503, 504];

/**
 * What a POST, PATCH or DELETE can answer besides its own: 413 over the route's body limit (BODY_LIMIT_BYTES, or
 * PARCEL_BODY_LIMIT_BYTES on the parcel routes), 415 for any content type but JSON (fastify reads the body of these
 * methods whether the route expects one or not, a DELETE too), and 507 when the disk holding the data is full
 * (nothing written).
 */
export const BODY = [413, 415, 507];

/** The responses of an operation for the OpenAPI document: its own, the common errors, and `extra` error statuses. */
export function responses(ok: Record<number, TSchema>, extra: number[] = []): Record<number, TSchema> {
  const out: Record<number, TSchema> = { ...ok };
  for (const code of [...EVERY_OPERATION, ...extra].sort((a, b) => a - b)) out[code] = ErrorRef;
  return out;
}

/**
 * `security` of an operation, which the service enforces as declared (route-auth.ts): an operation whose
 * requirements do not list `bearer` refuses an account's bearer token with 403.
 * - API_KEY_ONLY: organization-wide data (accounts, tokens, billing, crop families): the organization's API key.
 * - ANY_CREDENTIAL: the API key with the account header (one account), the bare API key (the organization),
 *   or the account's bearer token.
 */
type Security = Array<Record<string, string[]>>;
export const API_KEY_ONLY: Security = [{ apiKey: [] }];
export const ANY_CREDENTIAL: Security = [{ apiKey: [], serviceAccount: [] }, { apiKey: [] }, { bearer: [] }];

/**
 * The `metadata[<key>]=<value>` filters, for the document only (the query schema accepts them as patternProperties,
 * which the generator does not turn into parameters; store/parcel-list.ts reads them). openapi.ts moves
 * `x-parameters` into the operation's parameters.
 */
export const MetadataFilter = {
  name: 'metadata', in: 'query', required: false, style: 'deepObject', explode: true,
  description: "Parcels whose metadata has these values, e.g. metadata[Supplier+ID]=S-12 ('+' or %20 for a space in the key). " +
    'Several keys: all must match; the same key twice: either value; values compare as text. metadata[] (no key) is refused like any unknown parameter.',
  schema: { type: 'object', additionalProperties: { type: 'string' } },
};

export const NoContent = Type.Null({ description: 'No content' });

/**
 * The URL of another page of the same listing, absolute: `publicUrl` (PUBLIC_URL, which may carry a path prefix the
 * proxy strips) + the route's own path with the request's parameters and query, `set` applied. A relative `next`
 * made `fetch(next)` throw. The path is rebuilt from the matched route, never copied from the request's spelling of
 * it ('/%61pi/…', '//api/…', an absolute-form request line).
 */
export function pageUrl(publicUrl: string, req: FastifyRequest, set: Record<string, string | number>): string {
  const url = new URL(req.url, 'http://service.invalid');
  for (const [k, v] of Object.entries(set)) url.searchParams.set(k, String(v));
  const params = (req.params ?? {}) as Record<string, string>;
  const path = req.routeOptions.url!.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  return `${publicUrl}${path}${url.search}`;
}
