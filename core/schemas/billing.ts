import { Type, type Static } from '@sinclair/typebox';
import { AccountId } from './accounts.ts';

export const Billing = Type.Object({
  organization: Type.String(),
  total_hectares: Type.Number(),
  accounts: Type.Array(Type.Object({
    account: AccountId,
    account_email: Type.String(),
    state: Type.Union([Type.Literal('active'), Type.Literal('deactivated')]),
    farms: Type.Integer(),
    parcels: Type.Integer(),
    hectares: Type.Number(),
  })),
  orphans: Type.Object({ farms: Type.Integer(), parcels: Type.Integer(), hectares: Type.Number() }),
});
export type Billing = Static<typeof Billing>;
