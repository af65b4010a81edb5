// Authentication: missing, unknown, revoked and doubled credentials are refused; API keys are stored hashed, and
// neither API keys nor bearer tokens ever reach the logs.
import { describe, expect, it } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { newOrg, newAccount, asAccount, asBearer, storeCounts, body, type Account } from '../test/helpers/service.ts';
import { buildApp } from './app.ts';
import { dbFile } from './config.ts';
import { svc, useServicePerTest, get } from './auth.test-helpers.ts';

useServicePerTest();

describe('missing and wrong credentials', () => {
  it('no credentials at all: 401 not_authenticated, on reads and writes', async () => {
    for (const [method, url] of [['GET', '/api/farms/'], ['GET', '/api/accounts/'], ['POST', '/api/accounts/'], ['GET', '/api/billing/'], ['GET', '/api/parcels/']] as const) {
      const res = await svc.app.inject({ method, url, ...(method === 'POST' ? { payload: { account_email: 'x@example.com' } } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(body(res).code).toBe('not_authenticated');
    }
    expect((await storeCounts(svc)).accounts).toBe(0);
  });

  it('an unknown API key: 401 invalid_api_key', async () => {
    await newOrg(svc);
    for (const key of ['fk_00000000_nope', 'nope', ' ']) {
      const res = await get('/api/farms/', { 'x-api-key': key });
      expect(res.statusCode, key).toBe(401);
      expect(body(res).code).toBe('invalid_api_key');
    }
  });

  it('a revoked API key stops working at once; another key of the organization keeps working', async () => {
    const org = await newOrg(svc);
    const second = await svc.store.apiKeys.create(org.organization_id, 'second');
    expect((await get('/api/farms/', { 'x-api-key': second.api_key })).statusCode).toBe(200);
    const initial = (await svc.store.apiKeys.list(org.organization_id)).find((k) => k.label === 'initial')!;
    await svc.store.apiKeys.revoke(org.organization_id, initial.prefix);
    const res = await get('/api/farms/', { 'x-api-key': org.api_key });
    expect(res.statusCode).toBe(401);
    expect(body(res).code).toBe('invalid_api_key');
    expect((await get('/api/farms/', { 'x-api-key': second.api_key })).statusCode).toBe(200);
  });

  it('API keys are stored hashed: the plaintext is in no row, nor (SQLite) the database file or its WAL', async () => {
    const org = await newOrg(svc);
    const extra = await svc.store.apiKeys.create(org.organization_id, 'extra');
    // Use the keys once so any lookup path has run too.
    expect((await get('/api/farms/', { 'x-api-key': org.api_key })).statusCode).toBe(200);
    expect((await get('/api/farms/', { 'x-api-key': extra.api_key })).statusCode).toBe(200);
    const rows = (await svc.probe.snapshot()).api_keys as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    for (const r of rows) for (const v of Object.values(r)) {
      expect(String(v)).not.toContain(org.api_key);
      expect(String(v)).not.toContain(extra.api_key);
    }
    // What reaches the disk is the store's own business: SQLite's file and WAL are checked here.
    if (!svc.sqlite) return;
    const file = dbFile(svc.dir);
    for (const f of [file, `${file}-wal`]) {
      if (!existsSync(f)) continue;
      const bytes = readFileSync(f).toString('latin1');
      expect(bytes).not.toContain(org.api_key);
      expect(bytes).not.toContain(extra.api_key);
      // The secret half of the key must not be there on its own either.
      expect(bytes).not.toContain(org.api_key.split('_').slice(2).join('_'));
    }
    svc.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(file).toString('latin1')).not.toContain(org.api_key);
  });

  it('sending both x-api-key and Authorization is refused, and nothing is created', async () => {
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    const before = await storeCounts(svc);
    const res = await svc.app.inject({
      method: 'POST', url: '/api/farms/', headers: { ...asAccount(org, acc), ...asBearer(acc) }, payload: { farm: { name: 'F' }, parcels: [] },
    });
    expect(res.statusCode).toBe(400);
    expect(await storeCounts(svc)).toEqual(before);
  });
});

describe('credentials never reach the logs', () => {
  it('neither the API key nor a bearer token appears in any log line, even at trace level and on errors', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const app = await buildApp({
      store: svc.store, logger: true, logStream: stream,
      config: { dataDir: svc.dir, logLevel: 'trace', gatewayTimeoutMs: 0, faults: false, publicUrl: 'http://127.0.0.1:8080', embedUrl: 'http://127.0.0.1:8080/embed' },
    });
    const secrets: string[] = [];
    try {
      const org = await newOrg(svc);
      const res = await app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': org.api_key }, payload: { account_email: 'log@example.com' } });
      expect(res.statusCode).toBe(201);
      const acc = res.json() as Account;
      secrets.push(org.api_key, acc.account_access);
      const calls: Array<Record<string, string>> = [
        { 'x-api-key': org.api_key },
        asAccount(org, acc),
        asBearer(acc),
        { 'x-api-key': acc.account_access },
        { authorization: `Bearer ${acc.account_access}x` },
        { 'x-api-key': `${org.api_key}-wrong` },
        { ...asBearer(acc), 'x-api-key': org.api_key },
        { ...asBearer(acc), cookie: `session=${acc.account_access}` },
      ];
      for (const headers of calls) {
        await app.inject({ method: 'GET', url: '/api/farms/', headers });
        await app.inject({ method: 'POST', url: '/api/farms/', headers, payload: '{"farm":' });
        await app.inject({ method: 'GET', url: '/api/farms/abc/', headers });
      }
      const fresh = await app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } });
      secrets.push((fresh.json() as { account_access: string }).account_access);
    } finally {
      await app.close();
    }
    const log = lines.join('');
    // The capture works: request lines were logged.
    expect(log).toContain('incoming request');
    expect(lines.length).toBeGreaterThan(20);
    expect(secrets).toHaveLength(3);
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      // Not even the signature or the random half on its own.
      expect(log).not.toContain(secret.includes('.') ? secret.split('.')[2]! : secret.split('_').slice(2).join('_'));
    }
    expect(log).not.toMatch(/fk_[0-9a-f]{8}_[A-Za-z0-9_-]{20,}/);
    expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
  });
});
