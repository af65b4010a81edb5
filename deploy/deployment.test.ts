// The reference deployment as deploy/up.ts starts it: every part running and wired as docs/deploy.md says.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { square } from '../test/helpers/service.ts';
import { migrations } from '../service/store/postgres/migrations/index.ts';
import { serverStats } from './haproxy.ts';
import { bouncerPid } from './pgbouncer.ts';
import { adminQuery, DATABASE, SERVICE_ROLE } from './postgres.ts';
import { DEPLOY_SKIP, demoClient, useDeployment } from './test-deployment.ts';

/** Statements in the primary's log (log_statement = all) that a transaction-mode pooler cannot carry. */
function sessionStateIn(log: string): string[] {
  return log.split('\n').filter((l) => l.includes(`${SERVICE_ROLE}@${DATABASE}`)).filter((l) =>
    // A named prepared statement: PostgreSQL logs `execute <unnamed>:` for the unnamed one node-postgres uses.
    /\b(execute|parse|bind) (?!<unnamed>)[^\s:]+:/.test(l) ||
    // SET without LOCAL (and not inside a SET LOCAL), LISTEN, session advisory locks, temporary tables.
    // PgBouncer itself sets the parameters it tracks per client (`SET application_name='…';`, no space before `=`).
    (/statement: (SET (?!LOCAL)|LISTEN|RESET|DISCARD)|pg_advisory_lock\(|CREATE TEMP/i.test(l) && !/statement: SET (application_name|client_encoding|datestyle|timezone|standard_conforming_strings)='/i.test(l)));
}

describe.skipIf(DEPLOY_SKIP !== null)('the reference deployment', () => {
  const deployment = useDeployment({ services: 3 });

  it('started three processes at once on a fresh database through PgBouncer: one migrated, all serve', async () => {
    const d = deployment();
    const v = await adminQuery<{ version: number }>(d.primary, 'SELECT version FROM schema_version', [], DATABASE);
    expect(v).toEqual([{ version: migrations.length }]);
    for (const s of d.services) expect(readFileSync(join(s.dir, 'service.log'), 'utf8')).toMatch(/listening on/);
  });

  it('spreads requests round robin over healthy processes, behind one address', async () => {
    const d = deployment();
    const call = demoClient(d);
    // Measured while every process is UP from start to end: on a loaded machine (the whole suite running beside it)
    // a health check can time out often enough for HAProxy to take a process out for a while — the balancer doing
    // its job, not what this test is about. A few tries; every one of them must answer 200.
    let spread: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      for (const deadline = Date.now() + 30_000; (await serverStats(d.balancer)).some((s) => s.status !== 'UP');) {
        expect(Date.now(), 'every process UP again within 30 s').toBeLessThan(deadline);
        await new Promise((ok) => setTimeout(ok, 250));
      }
      const before = await serverStats(d.balancer);
      for (let i = 0; i < 9; i++) expect((await call('GET', '/api/farms/')).status).toBe(200);
      const after = await serverStats(d.balancer);
      spread = after.map((s, i) => s.requests - before[i]!.requests);
      if (after.every((s) => s.status === 'UP')) break;
    }
    expect(spread).toEqual([3, 3, 3]);
  });

  it('streams the primary to the standby, which reads what was written', async () => {
    const d = deployment();
    const call = demoClient(d);
    const farm = await call('POST', '/api/farms/', { farm: { name: 'Streamed farm' } });
    expect(farm.status).toBe(201);
    const rep = await adminQuery(d.primary, 'SELECT application_name, state FROM pg_stat_replication');
    expect(rep).toEqual([{ application_name: 'standby1', state: 'streaming' }]);
    for (const deadline = Date.now() + 10_000; ;) {
      const rows = await adminQuery(d.standby, 'SELECT name FROM farms WHERE id = $1', [farm.json.id], DATABASE);
      if (rows.length) break;
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((ok) => setTimeout(ok, 50));
    }
    expect(await adminQuery(d.standby, 'SELECT pg_is_in_recovery() AS r')).toEqual([{ r: true }]);
  });

  it('sends PgBouncer no named prepared statement and no session state (PgBouncer 1.18 in transaction mode)', async () => {
    const d = deployment();
    const call = demoClient(d);
    // Writes, a bulk insert, reads, a listing, the change feed: what a sync does.
    const farm = await call('POST', '/api/farms/', { farm: { name: 'Pooled farm' } });
    const parcels = Array.from({ length: 20 }, (_, i) => ({ name: `p${i}`, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square(-4 + i * 0.01, 38) } } }));
    expect((await call('POST', '/api/parcels/', { farm: { id: farm.json.id }, parcels })).status).toBe(201);
    expect((await call('GET', `/api/farms/${farm.json.id}/parcels/`)).status).toBe(200);
    expect((await call('GET', '/api/changes/')).status).toBeLessThan(500);
    const log = () => readFileSync(join(d.primary.dir, 'postgres.log'), 'utf8');
    expect(log()).toMatch(/execute <unnamed>: [^]*?INSERT INTO parcels/);
    expect(sessionStateIn(log())).toEqual([]);
    // The check itself: a named statement sent through PgBouncer is found.
    const c = new pg.Client({ connectionString: d.databaseUrl });
    process.env.PGPASSFILE = d.passfile;
    await c.connect();
    try {
      await c.query({ name: 'probe_named', text: 'SELECT 1 AS one' });
    } finally {
      await c.end();
      delete process.env.PGPASSFILE;
    }
    expect(sessionStateIn(log()).join('\n')).toMatch(/probe_named/);
  });

  it('keeps passwords in files only their owner reads, never in a process\'s command line or environment', async () => {
    const d = deployment();
    const secret = readFileSync(join(d.bouncer.dir, 'userlist.txt'), 'utf8').split('"')[3]!;
    expect(secret.length).toBeGreaterThan(20);
    for (const f of [d.passfile, join(d.bouncer.dir, 'userlist.txt'), join(d.dir, 'pg', 'replication.pgpass')]) {
      expect(statSync(f).mode & 0o777, f).toBe(0o600);
    }
    for (const pid of [...d.services.map((s) => s.pid!), bouncerPid(d.bouncer)!]) {
      for (const what of ['cmdline', 'environ']) expect(readFileSync(`/proc/${pid}/${what}`, 'latin1')).not.toContain(secret);
    }
  });
});
