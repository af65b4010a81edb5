import type { Database } from 'better-sqlite3';

// `blocked_code`: why an account is blocked, as a stable code (sync/blocked.ts) beside the reason in words, so that
// the CLI and the app can say what to do about it ("connect again with the current key"). Accounts blocked under
// version 3 get the code their reason stands for.
export function up(db: Database): void {
  db.exec(`ALTER TABLE accounts ADD COLUMN blocked_code TEXT;
    UPDATE accounts SET blocked_code = CASE
      WHEN blocked = 'Account not found' THEN 'account_not_found'
      WHEN blocked = 'Invalid API key' THEN 'invalid_api_key'
      WHEN blocked LIKE 'Invalid token%' THEN 'invalid_token'
      WHEN blocked LIKE 'The token command%' THEN 'token_command_failed'
      ELSE 'refused' END
    WHERE blocked IS NOT NULL;`);
}
