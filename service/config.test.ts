import { describe, expect, it } from 'vitest';
import { configFromEnv } from './config.ts';

describe('READ_DATABASE_URL and READ_MAX_LAG_MS', () => {
  const primary = 'postgres://furrow@127.0.0.1:6432/furrow';
  it('a standby URL without a password, and the lag bound (1 s unless set)', () => {
    const c = configFromEnv({ DATABASE_URL: primary, READ_DATABASE_URL: 'postgres://furrow@127.0.0.1:5433/furrow' });
    expect(c).toMatchObject({ readDatabaseUrl: 'postgres://furrow@127.0.0.1:5433/furrow', readMaxLagMs: 1_000 });
    expect(configFromEnv({ DATABASE_URL: primary, READ_MAX_LAG_MS: '250' }).readMaxLagMs).toBe(250);
    expect(configFromEnv({}).readDatabaseUrl).toBeUndefined();
  });
  it('refuses a password in the URL: it would sit in the process environment', () => {
    expect(() => configFromEnv({ DATABASE_URL: primary, READ_DATABASE_URL: 'postgres://furrow:s3cret@127.0.0.1:5433/furrow' })).toThrow(/must not hold a password.*PGPASSFILE/);
    expect(() => configFromEnv({ DATABASE_URL: primary, READ_DATABASE_URL: 'postgres://furrow@127.0.0.1:5433/furrow?password=x' })).toThrow(/must not hold a password/);
  });
  it('refuses a standby without a PostgreSQL primary, and what is not a postgres URL', () => {
    expect(() => configFromEnv({ READ_DATABASE_URL: 'postgres://furrow@127.0.0.1:5433/furrow' })).toThrow(/needs DATABASE_URL/);
    expect(() => configFromEnv({ DATABASE_URL: primary, READ_DATABASE_URL: 'mysql://x@h/db' })).toThrow(/READ_DATABASE_URL must be a postgres/);
    expect(() => configFromEnv({ DATABASE_URL: primary, READ_MAX_LAG_MS: '-1' })).toThrow(/READ_MAX_LAG_MS/);
  });
});

describe('FAULTS', () => {
  it('1: the rules in the process; database: in the database, shared by every process on it; otherwise off', () => {
    expect(configFromEnv({ FAULTS: '1' })).toMatchObject({ faults: true, faultsShared: false });
    expect(configFromEnv({ FAULTS: 'database' })).toMatchObject({ faults: true, faultsShared: true });
    expect(configFromEnv({})).toMatchObject({ faults: false, faultsShared: false });
  });
});
