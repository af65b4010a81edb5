import type { Db } from './db.ts';
import type { Billing } from '../../../core/schemas/billing.ts';
import { billingOf, type AccountTotals, type Totals } from '../billing.ts';

/**
 * Billable hectares (../billing.ts), read from the farms' own totals (migration 004), so the cost follows the
 * number of farms, not of parcels.
 */
export function billing(db: Db, organizationId: string): Billing {
  const rows = db.prepare(`SELECT a.id AS account, a.account_email, a.state,
      COUNT(f.id) AS farms, COALESCE(SUM(f.parcel_count), 0) AS parcels, COALESCE(SUM(f.micro_hectares), 0) AS micro
    FROM accounts a LEFT JOIN farms f ON f.account_id = a.id
    WHERE a.organization_id = ? GROUP BY a.id ORDER BY a.created, a.id`).all(organizationId) as AccountTotals[];
  const o = db.prepare(`SELECT COUNT(*) AS farms, COALESCE(SUM(parcel_count), 0) AS parcels, COALESCE(SUM(micro_hectares), 0) AS micro
    FROM farms WHERE organization_id = ? AND account_id IS NULL`).get(organizationId) as Totals;
  return billingOf(organizationId, rows, o);
}
