import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedStatement } from './statements.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-statements-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cachedStatement', () => {
  it('prepares once per connection and text: a second connection to the same file has its own', () => {
    const a = new Database(join(dir, 's.db'));
    const b = new Database(join(dir, 's.db'));
    expect(cachedStatement(a, 'SELECT 1')).toBe(cachedStatement(a, 'SELECT 1'));
    expect(cachedStatement(a, 'SELECT 2')).not.toBe(cachedStatement(a, 'SELECT 1'));
    expect(cachedStatement(a, 'SELECT 1')).not.toBe(cachedStatement(b, 'SELECT 1'));
    expect(cachedStatement(b, 'SELECT 1').pluck().get()).toBe(1);
    a.close();
    b.close();
  });
});
