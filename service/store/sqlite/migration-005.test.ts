// Migration 005 replaced the one JWT secret of the whole service by per-organization signing keys: a token signed
// with the old secret before the upgrade is refused, and new tokens work.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { migrate, openDb } from './db.ts';
import { sqliteStore } from './store.ts';
import { signAccountAccess } from '../tokens.ts';
import { dbFile } from '../../config.ts';
import { buildApp } from '../../app.ts';
import { bearer, expectInvalidToken } from '../../auth.test-helpers.ts';

describe('migration 005', () => {
  it('drops the single secret: a token signed with it before the upgrade is refused; new tokens work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'furrow-mig005-'));
    try {
      // A database as the previous release left it: schema 3, the one secret in settings, an account.
      const raw = new Database(dbFile(dir));
      migrate(raw, 3);
      const secret = Buffer.alloc(32, 7);
      raw.prepare("INSERT INTO settings (key, value) VALUES ('jwt_secret', ?)").run(secret.toString('base64url'));
      raw.prepare("INSERT INTO organizations (id, name, created) VALUES ('org-old', 'Old', '2025-01-01T00:00:00Z')").run();
      raw.prepare(`INSERT INTO accounts (id, organization_id, account_email, email_norm, state, auth_id, created, modified)
        VALUES ('acc-old', 'org-old', 'o@example.com', 'o@example.com', 'active', 'auth-old-0123456789', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`).run();
      raw.close();
      // Exactly what the previous release signed.
      const legacy = await new SignJWT({ org: 'org-old', typ: 'account_access' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('acc-old').setIssuedAt().setExpirationTime('3h').sign(secret);

      const db = openDb(dbFile(dir), { synchronous: 'NORMAL' });
      const store = sqliteStore(db);
      const app = await buildApp({ store, config: { dataDir: dir, gatewayTimeoutMs: 0, validationWorkers: 0 } });
      try {
        expect(db.prepare("SELECT COUNT(*) AS n FROM settings WHERE key = 'jwt_secret'").get()).toEqual({ n: 0 });
        expect(db.prepare("SELECT token_epoch FROM accounts WHERE id = 'acc-old'").get()).toEqual({ token_epoch: 0 });
        expectInvalidToken(await app.inject({ method: 'GET', url: '/api/farms/', headers: bearer(legacy) }));
        const fresh = (await signAccountAccess(store, 'acc-old')).token;
        expect((await app.inject({ method: 'GET', url: '/api/farms/', headers: bearer(fresh) })).statusCode).toBe(200);
      } finally {
        await app.close();
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
