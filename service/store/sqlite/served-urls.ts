// The addresses the service last served with, kept in its database: the admin CLI, run on the same DATA_DIR without
// the service's environment, builds the embedded_url (and the demo's links) from them instead of guessing
// http://127.0.0.1:8080.
import type { Db } from './db.ts';

const KEY = 'served_urls';

export interface ServedUrls { public_url: string; embed_url: string; since: string }

/** Called when the service starts listening: its PUBLIC_URL and EMBED_URL as it resolved them. */
export function recordServedUrls(db: Db, urls: { publicUrl: string; embedUrl: string }): void {
  const value: ServedUrls = { public_url: urls.publicUrl, embed_url: urls.embedUrl, since: new Date().toISOString() };
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(KEY, JSON.stringify(value));
}

/** What the service last served with, or null when no service has listened on this database yet. */
export function servedUrls(db: Db): ServedUrls | null {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string } | undefined;
  if (!row) return null;
  try {
    const v = JSON.parse(row.value) as Partial<ServedUrls>;
    return typeof v.public_url === 'string' && typeof v.embed_url === 'string' ? { public_url: v.public_url, embed_url: v.embed_url, since: String(v.since ?? '') } : null;
  } catch {
    return null;
  }
}
