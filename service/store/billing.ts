// Billable hectares from per-account totals, the same arithmetic for every store.
import type { Billing } from '../../core/schemas/billing.ts';

/** Farms, parcels and whole micro-hectares: sums stay integers until the end, so the total is exactly the sum of its parts. */
export interface Totals { farms: number; parcels: number; micro: number }
export type AccountTotals = Totals & Omit<Billing['accounts'][number], 'farms' | 'parcels' | 'hectares'>;

/**
 * Every parcel of the organization is billed, deactivated accounts' and orphan farms' included: `accounts` are
 * the totals of each account (in the order to list them), `orphans` those of the farms linked to none.
 */
export function billingOf(organizationId: string, accounts: readonly AccountTotals[], orphans: Totals): Billing {
  const total = accounts.reduce((s, a) => s + a.micro, 0) + orphans.micro;
  return {
    organization: organizationId,
    total_hectares: total / 1e6,
    accounts: accounts.map(({ micro, ...a }) => ({ ...a, hectares: micro / 1e6 })),
    orphans: { farms: orphans.farms, parcels: orphans.parcels, hectares: orphans.micro / 1e6 },
  };
}
