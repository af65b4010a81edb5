import type { Database } from 'better-sqlite3';

// Account tokens become revocable (issue 9, item 6). Each organization signs its account_access tokens with its
// own HMAC secrets, named in the token header by `kid`: rotating one organization's secret touches no other, and
// deleting a key refuses every token it signed. `retired` marks a key that no longer signs; it still verifies
// the tokens it signed before (they expire within 3 hours). accounts.token_epoch is copied into every token and
// incremented on deactivation, reactivation and an explicit revoke, so no older token survives those.
// The single secret of every organization (settings 'jwt_secret') goes: tokens it signed carry no kid and are
// refused from now on; clients get a fresh token from POST /api/accounts/{id}/token/ (the sync engine does on
// its own).
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE signing_keys (
      kid TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      secret BLOB NOT NULL,
      created TEXT NOT NULL,
      retired TEXT
    ) STRICT;
    CREATE INDEX signing_keys_org ON signing_keys(organization_id, retired);

    ALTER TABLE accounts ADD COLUMN token_epoch INTEGER NOT NULL DEFAULT 0;

    DELETE FROM settings WHERE key = 'jwt_secret';
  `);
}
