import type { Db } from './db.ts';
import type { Billing } from '../../core/schemas/billing.ts';

/** Billable hectares: every parcel of the organization, deactivated accounts' and orphan farms' included. */
export function billing(db: Db, organizationId: string): Billing {
  const accounts = db.prepare(`SELECT a.id AS account, a.account_email, a.state,
      (SELECT COUNT(*) FROM farms f WHERE f.account_id = a.id) AS farms,
      (SELECT COUNT(*) FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE f.account_id = a.id) AS parcels,
      (SELECT COALESCE(SUM(p.hectares), 0) FROM parcels p JOIN farms f ON f.id = p.farm_id WHERE f.account_id = a.id) AS hectares
    FROM accounts a WHERE a.organization_id = ? ORDER BY a.created, a.id`).all(organizationId) as Billing['accounts'];
  const orphans = db.prepare(`SELECT COUNT(DISTINCT f.id) AS farms, COUNT(p.id) AS parcels, COALESCE(SUM(p.hectares), 0) AS hectares
    FROM farms f LEFT JOIN parcels p ON p.farm_id = f.id WHERE f.organization_id = ? AND f.account_id IS NULL`).get(organizationId) as Billing['orphans'];
  const total = accounts.reduce((s, a) => s + a.hectares, 0) + orphans.hectares;
  return { organization: organizationId, total_hectares: total, accounts, orphans };
}
