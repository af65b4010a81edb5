import type { FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorBody } from '../../core/schemas/common.ts';

const ErrorRef = Type.Ref(ErrorBody);

/** The error responses every authenticated route can give, for the OpenAPI document. */
export function responses(ok: Record<number, TSchema>, extra: number[] = []): Record<number, TSchema> {
  const out: Record<number, TSchema> = { ...ok };
  for (const code of [400, 401, 403, 404, ...extra]) out[code] = ErrorRef;
  return out;
}

export const NoContent = Type.Null({ description: 'No content' });

/**
 * The URL of another page of the same listing, absolute: `publicUrl` (PUBLIC_URL, which may carry a path prefix the
 * proxy strips) + the request's path and query with `set` applied. A relative `next` made `fetch(next)` throw.
 */
export function pageUrl(publicUrl: string, req: FastifyRequest, set: Record<string, string | number>): string {
  const url = new URL(req.url, 'http://service.invalid');
  for (const [k, v] of Object.entries(set)) url.searchParams.set(k, String(v));
  return `${publicUrl}${url.pathname}${url.search}`;
}
