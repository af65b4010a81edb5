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
