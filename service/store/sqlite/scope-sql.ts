// A Scope (../scope.ts) as SQL: the visibility conditions every scoped query of the SQLite store filters through.
import type { Scope } from '../scope.ts';

/** SQL condition: farm alias `f` is visible to the scope (named parameters @org and @acc). */
export const FARM_VISIBLE = `f.account_id IN (SELECT a.id FROM accounts a WHERE a.organization_id = @org AND a.state = 'active' AND (@acc IS NULL OR a.id = @acc))`;
export const ACCOUNT_VISIBLE = (col: string) =>
  `${col} IN (SELECT a.id FROM accounts a WHERE a.organization_id = @org AND a.state = 'active' AND (@acc IS NULL OR a.id = @acc))`;

export const scopeParams = (s: Scope) => ({ org: s.organizationId, acc: s.accountId });
