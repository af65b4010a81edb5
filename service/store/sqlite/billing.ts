import type { Db } from './db.ts';
import type { Billing } from '../../../core/schemas/billing.ts';

interface Totals { farms: number; parcels: number; micro: number }

/**
 * Billable hectares: every parcel of the organization, deactivated accounts' and orphan farms' included. Read from
 * the farms' own totals (migration 004), so the cost follows the number of farms, not of parcels; sums stay in
 * whole micro-hectares until the end, so the total is exactly the sum of its parts.
 */
export function billing(db: Db, organizationId: string): Billing {
  const rows = db.prepare(`SELECT a.id AS account, a.account_email, a.state,
      COUNT(f.id) AS farms, COALESCE(SUM(f.parcel_count), 0) AS parcels, COALESCE(SUM(f.micro_hectares), 0) AS micro
    FROM accounts a LEFT JOIN farms f ON f.account_id = a.id
    WHERE a.organization_id = ? GROUP BY a.id ORDER BY a.created, a.id`).all(organizationId) as (Totals & Omit<Billing['accounts'][number], 'farms' | 'parcels' | 'hectares'>)[];
  const o = db.prepare(`SELECT COUNT(*) AS farms, COALESCE(SUM(parcel_count), 0) AS parcels, COALESCE(SUM(micro_hectares), 0) AS micro
    FROM farms WHERE organization_id = ? AND account_id IS NULL`).get(organizationId) as Totals;
  const accounts = rows.map(({ micro, ...a }) => ({ ...a, hectares: micro / 1e6 }));
  const total = rows.reduce((s, a) => s + a.micro, 0) + o.micro;
  return {
    organization: organizationId,
    total_hectares: total / 1e6,
    accounts,
    orphans: { farms: o.farms, parcels: o.parcels, hectares: o.micro / 1e6 },
  };
}
