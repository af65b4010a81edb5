import type { Database } from 'better-sqlite3';

// The admin panel's users, their sessions and failed sign-ins. Admins belong to one organization and go with
// it. A session row keeps only the SHA-256 of the cookie's random token, so a copy of the database cannot be
// replayed as a cookie. Only failures are recorded in admin_login_attempts: they are what the rate limit counts.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE admins (
      id INTEGER PRIMARY KEY,
      organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      email TEXT NOT NULL,
      email_norm TEXT NOT NULL,
      password_hash TEXT NOT NULL,
      created TEXT NOT NULL,
      UNIQUE (organization_id, email_norm)
    ) STRICT;
    CREATE INDEX admins_email ON admins(email_norm);

    CREATE TABLE admin_sessions (
      id_hash TEXT PRIMARY KEY,
      admin_id INTEGER NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
      csrf_token TEXT NOT NULL,
      flash TEXT,
      created TEXT NOT NULL,
      expires TEXT NOT NULL,
      last_seen TEXT NOT NULL
    ) STRICT;
    CREATE INDEX admin_sessions_admin ON admin_sessions(admin_id);
    CREATE INDEX admin_sessions_expires ON admin_sessions(expires);

    CREATE TABLE admin_login_attempts (
      id INTEGER PRIMARY KEY,
      email_norm TEXT NOT NULL,
      ip TEXT NOT NULL,
      at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX admin_login_attempts_email_ip ON admin_login_attempts(email_norm, ip, at);
    CREATE INDEX admin_login_attempts_ip ON admin_login_attempts(ip, at);
  `);
}
