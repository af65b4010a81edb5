// A database out of reach: a read is answered 503 with Retry-After (clients retry it, as through a failover), a write
// keeps the 500 of an unknown outcome (its connection may have broken after COMMIT), and once the database is back
// the same service answers as before. The database is the tests' real PostgreSQL, reached through a TCP forwarder
// that the test closes, as a primary going away or PgBouncer restarting looks to the service.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../app.ts';
import { PG_SKIP, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { openPgStore, type PgStore } from './index.ts';
import { databaseUnreachable } from './unreachable.ts';

describe('databaseUnreachable', () => {
  it('tells the database out of reach from other failures', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    for (const e of [coded('ECONNREFUSED'), coded('ECONNRESET'), coded('08P01'), coded('08006'), coded('57P01'), coded('57P03'), coded('53300'),
      new Error('Connection terminated unexpectedly'), new Error('timeout exceeded when trying to connect'), new Error('wrapped', { cause: coded('ECONNREFUSED') })]) {
      expect(databaseUnreachable(e), String((e as { code?: string }).code ?? e.message)).toBe(true);
    }
    for (const e of [coded('23505'), coded('42P01'), coded('SQLITE_BUSY'), new TypeError('undefined is not a function'), null, undefined, 'text']) {
      expect(databaseUnreachable(e)).toBe(false);
    }
  });
});

describe.skipIf(PG_SKIP !== null)('the service with its database out of reach', () => {
  const db = useTestDatabase();
  let forwarder: Server | null = null;
  const sockets = new Set<Socket>();
  let port = 0;
  let store: PgStore;
  let app: App;

  /** The test cluster's Unix socket (it listens on no TCP port). */
  function socketPath(): string {
    const dir = decodeURIComponent(/[?&]host=([^&]+)/.exec(db().url)![1]!);
    return join(dir, readdirSync(dir).find((f) => /^\.s\.PGSQL\.\d+$/.test(f))!);
  }
  /** Listens on `port` (0: a new one) and pipes each connection to the database's socket. */
  async function open(): Promise<void> {
    const target = socketPath();
    forwarder = createServer((client) => {
      const server = connect(target);
      for (const s of [client, server]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => {}); }
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((ok) => forwarder!.listen(port, '127.0.0.1', ok));
    port = (forwarder!.address() as { port: number }).port;
  }
  /** Stops listening and cuts every connection, as a database host going away. */
  async function cut(): Promise<void> {
    const closed = new Promise((ok) => forwarder!.close(ok));
    for (const s of sockets) s.destroy();
    await closed;
  }

  beforeAll(async () => {
    await open();
    // The same role and database, over TCP to the forwarder (postgres://role@/name?host=/socket/dir).
    const [, role, name] = /^postgres:\/\/([^@]+)@\/([^?]+)/.exec(db().url)!;
    store = await openPgStore(`postgres://${role}@127.0.0.1:${port}/${name}`, { max: 2, connectionTimeoutMs: 1_000 });
    app = await buildApp({ store });
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    if (forwarder?.listening) await cut();
  });

  const get = () => app.inject({ method: 'GET', url: '/api/farms/', headers: { 'x-api-key': 'not-a-key', 'service-account': 'none' } });

  it('answers a read 503 with Retry-After while the database is away, and a write 500; as before once it is back', async () => {
    expect((await get()).statusCode).toBe(401);
    await cut();
    const read = await get();
    expect(read.statusCode).toBe(503);
    expect(read.headers['retry-after']).toBe('1');
    expect(read.json()).toMatchObject({ code: 'service_busy', message: expect.stringMatching(/cannot reach its database/) });
    const write = await app.inject({ method: 'POST', url: '/api/farms/', headers: { 'x-api-key': 'not-a-key', 'service-account': 'none' }, payload: { name: 'x' } });
    expect(write.statusCode).toBe(500);
    await open();
    expect((await get()).statusCode).toBe(401);
  });
});
