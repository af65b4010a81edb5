// The served addresses (../served-urls.ts) as one row of the settings table, as service/store/sqlite/served-urls.ts.
import type pg from 'pg';
import { parseServedUrls, servedUrlsOf } from '../served-urls.ts';
import type { ServedUrlStore } from '../store.ts';

const KEY = 'served_urls';

export function pgServedUrls(pool: pg.Pool): ServedUrlStore {
  return {
    // An upsert: two processes starting together both write, the last one's urls stay (as in SQLite).
    async record(urls) {
      await pool.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [KEY, JSON.stringify(servedUrlsOf(urls))]);
    },
    async get() {
      const row = (await pool.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [KEY])).rows[0];
      return row ? parseServedUrls(row.value) : null;
    },
  };
}
