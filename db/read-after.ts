// The account's read-after state in the mirror (migration 012; sync/read-after.ts makes and reads it).
import type { Db } from './open.ts';
import { cachedStatement } from '../platform/node/statements.ts';

export function readAfterState(db: Db, accountId: string): string | null {
  return (cachedStatement(db, 'SELECT read_after FROM accounts WHERE id = ?').get(accountId) as { read_after: string | null } | undefined)?.read_after ?? null;
}

export function saveReadAfterState(db: Db, accountId: string, state: string | null): void {
  cachedStatement(db, 'UPDATE accounts SET read_after = ? WHERE id = ?').run(state, accountId);
}
