// The served addresses (../served-urls.ts) as one row of the settings table.
import type { Db } from './db.ts';
import { parseServedUrls, servedUrlsOf, type ServedUrls } from '../served-urls.ts';

const KEY = 'served_urls';

/** Called when the service starts listening: its PUBLIC_URL and EMBED_URL as it resolved them. */
export function recordServedUrls(db: Db, urls: { publicUrl: string; embedUrl: string }): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(KEY, JSON.stringify(servedUrlsOf(urls)));
}

/** What the service last served with, or null when no service has listened on this database yet. */
export function servedUrls(db: Db): ServedUrls | null {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string } | undefined;
  return row ? parseServedUrls(row.value) : null;
}
