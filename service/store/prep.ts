import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

// Hot paths (bulk create, listings) prepare the same SQL thousands of times a second; cache per handle.
const cache = new WeakMap<Db, Map<string, Statement>>();

export function prep(db: Db, sql: string): Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

