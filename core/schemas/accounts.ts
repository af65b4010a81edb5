import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable } from './common.ts';

export const AccountId = Type.String({ pattern: '^acc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });
export const AccountParams = Type.Object({ id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const AccountCreateRequest = Type.Object({
  account_email: Type.String({ format: 'email', maxLength: 254 }),
}, { additionalProperties: false });
export type AccountCreateRequest = Static<typeof AccountCreateRequest>;

export const ConnectedAccount = Type.Object({
  id: AccountId,
  account_email: Type.String(),
  embedded_url: Type.String({ format: 'uri' }),
  account_access: Type.String({ description: 'JWT (HS256), valid 3 hours, scoped to this account' }),
});
export type ConnectedAccount = Static<typeof ConnectedAccount>;

export const AccountSummary = Type.Object({
  id: AccountId,
  account_email: Type.String(),
  embedded_url: Type.String({ format: 'uri' }),
  state: Type.Union([Type.Literal('active'), Type.Literal('deactivated')]),
  max_parcel_hectares: Type.Number({ description: 'The largest parcel this account may create' }),
  created: DateTime,
  deactivated: Nullable(DateTime),
});
export type AccountSummary = Static<typeof AccountSummary>;

export const AccessToken = Type.Object({
  account_access: Type.String(),
  expires_at: DateTime,
});
export type AccessToken = Static<typeof AccessToken>;
