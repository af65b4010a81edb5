import type { Database } from 'better-sqlite3';

// `sent_state`: the state an update op's last PATCH asked the service to hold (JSON), written before the request
// leaves. When that PATCH's answer was lost (a crash, a timeout) and the user edited again meanwhile, the service
// may already hold it: the next attempt sees the service's state equal to `sent_state` and merges against it,
// instead of against the older base, where the user's own landed edit would look like a conflicting remote one.
export function up(db: Database): void {
  db.exec('ALTER TABLE outbox ADD COLUMN sent_state TEXT');
}
