// Billable hectares in PostgreSQL (../billing.ts does the arithmetic), read from the farms' own totals as SQLite's
// billing is (../sqlite/billing.ts): the cost follows the number of farms, not of parcels.
import type { Pool } from 'pg';
import { billingOf, type AccountTotals, type Totals } from '../billing.ts';
import type { BillingStore } from '../store.ts';

type Row = AccountTotals & { orphans: boolean };

export function pgBilling(pool: Pool): BillingStore {
  return {
    of: async (organizationId) => {
      // The accounts and the orphans in one statement, so from one snapshot: a farm unlinked meanwhile is billed
      // once, to its account or as an orphan. SUM of a bigint is a numeric (a string from node-postgres): cast back,
      // the sums are far below 2^53. Accounts in SQLite's order: created, then id compared as bytes.
      const r = await pool.query<Row>(`SELECT * FROM (
          SELECT false AS orphans, a.id AS account, a.account_email, a.state, a.created,
            COUNT(f.id) AS farms, COALESCE(SUM(f.parcel_count), 0)::bigint AS parcels, COALESCE(SUM(f.micro_hectares), 0)::bigint AS micro
          FROM accounts a LEFT JOIN farms f ON f.organization_id = a.organization_id AND f.account_id = a.id
          WHERE a.organization_id = $1 GROUP BY a.id
          UNION ALL
          SELECT true, NULL, NULL, NULL, NULL, COUNT(*), COALESCE(SUM(parcel_count), 0)::bigint, COALESCE(SUM(micro_hectares), 0)::bigint
          FROM farms WHERE organization_id = $1 AND account_id IS NULL) t
        ORDER BY orphans, created, account COLLATE "C"`, [organizationId]);
      const accounts = r.rows.filter((x) => !x.orphans).map(({ account, account_email, state, farms, parcels, micro }) =>
        ({ account, account_email, state, farms, parcels, micro }));
      const o = r.rows.find((x) => x.orphans)!;
      const orphans: Totals = { farms: o.farms, parcels: o.parcels, micro: o.micro };
      return billingOf(organizationId, accounts, orphans);
    },
  };
}
