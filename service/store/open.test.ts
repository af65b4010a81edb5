// Which store the service opens: PostgreSQL when DATABASE_URL is set, SQLite in DATA_DIR otherwise, and a
// DATABASE_URL that is not PostgreSQL's refused at start rather than quietly ignored.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { configFromEnv, dbFile } from '../config.ts';
import { openStore } from './open.ts';
import { PG_SKIP, useTestDatabase } from '../../test/helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the store the service opens', () => {
  it('refuses a DATABASE_URL of another database, naming the variable and not its secret', () => {
    expect(() => configFromEnv({ DATABASE_URL: 'mysql://root:hunter2@db/furrow' })).toThrow(/^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL, not mysql:\/\/…/);
    expect(() => configFromEnv({ DATABASE_URL: 'mysql://root:hunter2@db/furrow' })).not.toThrow(/hunter2/);
    expect(() => configFromEnv({ DATABASE_URL: 'furrow.db' })).toThrow(/^DATABASE_URL must be a postgres/);
    expect(configFromEnv({ DATABASE_URL: '' }).databaseUrl).toBeUndefined();
    expect(configFromEnv({ DATABASE_URL: 'postgresql://u@/furrow?host=/run/postgresql' }).databaseUrl).toBe('postgresql://u@/furrow?host=/run/postgresql');
  });

  it('is the SQLite file in DATA_DIR without DATABASE_URL', async () => {
    const store = await openStore(configFromEnv({ DATA_DIR: dir }));
    await store.organizations.create('Local');
    await store.close();
    expect(existsSync(dbFile(dir))).toBe(true);
  });

  describe.skipIf(PG_SKIP !== null)('with DATABASE_URL', () => {
    const db = useTestDatabase();
    it('is PostgreSQL, migrated at open, with nothing written to DATA_DIR', async () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'furrow-open-pg-'));
      const store = await openStore(configFromEnv({ DATA_DIR: elsewhere, DATABASE_URL: db().url }), { serving: true });
      const { organization_id } = await store.organizations.create('Hosted');
      await store.close();
      expect(existsSync(dbFile(elsewhere))).toBe(false);
      rmSync(elsewhere, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: db().url });
      await client.connect();
      const rows = (await client.query('SELECT name FROM organizations WHERE id = $1', [organization_id])).rows;
      await client.end();
      expect(rows).toEqual([{ name: 'Hosted' }]);
    });
  });
});
