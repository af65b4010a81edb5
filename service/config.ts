import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import type { ConnectionLimits } from './connections.ts';
import { defaultMaxConnections, openFilesLimit } from '../platform/node/connections.ts';
import { CHANGES_PAGE_BYTES } from './store/rows.ts';

export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Public base URL of this service, used to build embedded_url when EMBED_URL is not set. */
  publicUrl: string;
  /** Host of the embedded map; embedded_url is `${embedUrl}/?auth_id=…`. */
  embedUrl: string;
  /** CSP frame-ancestors of the embedded map: the integrator sites allowed to show it in an iframe. */
  embedFrameAncestors: string;
  /** How long the gateway waits for a response before answering 504 (the work still commits). */
  gatewayTimeoutMs: number;
  /**
   * A streamed listing (GET /api/farms/{id}/parcels/) whose client has taken no byte for this long is cut off: it
   * holds a read snapshot, which keeps the WAL from being checkpointed past it.
   */
  stallTimeoutMs: number;
  /** How long the change feed keeps a deletion's tombstone (CHANGE_HORIZON_DAYS): a cursor older than that gets 410. */
  changeHorizonSeconds: number;
  /**
   * Most bytes of objects one page of the change feed carries (CHANGES_PAGE_BYTES, 16 MiB by default): a page ends
   * before the change that would pass it (with at least one), however large its `limit`.
   */
  changesPageBytes: number;
  /**
   * Serves the change feed (CHANGE_FEED, on unless `off`): off, the service answers like the hosted original of the
   * spec, which has no such route (404), and clients fall back to full listings. The sync suite runs both ways.
   */
  changeFeed: boolean;
  /** Enables POST /__faults__ (tests only). */
  faults: boolean;
  /**
   * FAULTS=database: the rules are kept in the PostgreSQL database, shared by every process on it (the tests of the
   * reference deployment: a rule is used once whichever process behind the balancer meets the request).
   */
  faultsShared: boolean;
  /** Timeouts of slow clients and bounds on open connections (connections.ts). */
  connections: ConnectionLimits;
  /**
   * Largest request body of the routes that take parcels (POST /api/parcels/, POST /api/farms/, PATCH
   * /api/parcels/{id}/), in bytes (413 payload_too_large past it). 32 MiB: 50 parcels at the 10,000-position cap
   * take about 20 MB as full-precision JSON, about 30 MB with a z. Those bodies are parsed on the validation workers.
   */
  parcelBodyLimitBytes: number;
  /**
   * Largest request body of every other route (1 MiB): their bodies are parsed on the thread that answers every
   * organization, so a 30 MB body sent to any path, with or without credentials, must not hold it for a second.
   */
  bodyLimitBytes: number;
  /** Header naming the connected account when acting with the API key. */
  accountHeader: string;
  synchronous: 'FULL' | 'NORMAL';
  /**
   * The PostgreSQL + PostGIS database to keep the data in (postgres:// or postgresql://), instead of the SQLite file
   * in dataDir: several service processes can then share it (docs/deploy.md). Unset: SQLite, the embedded default.
   */
  databaseUrl: string | undefined;
  /**
   * A streaming-replication standby of databaseUrl (READ_DATABASE_URL; its password from PGPASSFILE, never in the
   * URL): the listings and the embedded map are read there while it is within readMaxLagMs of the
   * primary and has replayed the client's own writes (read-routing.ts). Unset: every read on the primary.
   */
  readDatabaseUrl: string | undefined;
  /** READ_MAX_LAG_MS: the standby is not read from while its replay is further behind the primary than this. */
  readMaxLagMs: number;
  /** Connections of this process's pool at most (PostgreSQL only): the processes together stay under max_connections. */
  pgPoolMax: number;
  /** Worker threads validating parcels off the request thread; default one per core (0: validate inline). */
  validationWorkers: number;
  logLevel: string;
}

export const DEFAULT_PARCEL_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${value}'`);
  return n;
}

/** DATABASE_URL, checked at start: a typo must not quietly fall back to the SQLite file. */
function databaseUrl(value: string | undefined, name = 'DATABASE_URL'): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  // Not WHATWG URL parsing: libpq's forms include an empty host with a socket directory (postgres://user@/db?host=/run/pg).
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new Error(`${name} must be a postgres:// or postgresql:// URL${scheme ? `, not ${scheme}://…` : ''} (unset it to keep the data in SQLite under DATA_DIR)`);
  }
  return value;
}

/**
 * READ_DATABASE_URL, checked at start: a standby of a PostgreSQL primary. Its password comes from PGPASSFILE like the
 * primary's; one written into the URL would sit in the process's environment, readable in /proc, so it is refused.
 */
function readDatabaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const url = databaseUrl(env.READ_DATABASE_URL, 'READ_DATABASE_URL');
  if (url === undefined) return undefined;
  if (databaseUrl(env.DATABASE_URL) === undefined) throw new Error('READ_DATABASE_URL needs DATABASE_URL: it names a standby of the PostgreSQL primary (unset it with SQLite)');
  if (/^[a-z]+:\/\/[^/@?#]*:[^/@?#]*@/i.test(url) || /[?&]password=/i.test(url)) {
    throw new Error('READ_DATABASE_URL must not hold a password: put it in the file PGPASSFILE names (mode 0600), as for DATABASE_URL');
  }
  return url;
}

/**
 * The connection bounds (docs/api.md, "Timeouts and connections"). A connection idle for less than the gateway's
 * limit would be closed under a request still being worked on, so that is refused at start.
 */
function connectionLimits(env: NodeJS.ProcessEnv, gatewayTimeoutMs: number): ConnectionLimits {
  const limits: ConnectionLimits = {
    headersTimeoutMs: int(env.HEADERS_TIMEOUT_MS, 20_000, 'HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: int(env.REQUEST_TIMEOUT_MS, 120_000, 'REQUEST_TIMEOUT_MS'),
    idleTimeoutMs: int(env.IDLE_TIMEOUT_MS, Math.max(75_000, gatewayTimeoutMs + 15_000), 'IDLE_TIMEOUT_MS'),
    maxConnections: int(env.MAX_CONNECTIONS, defaultMaxConnections(openFilesLimit()), 'MAX_CONNECTIONS'),
    maxConnectionsPerAddress: int(env.MAX_CONNECTIONS_PER_ADDRESS, 100, 'MAX_CONNECTIONS_PER_ADDRESS'),
  };
  if (limits.idleTimeoutMs !== 0 && gatewayTimeoutMs !== 0 && limits.idleTimeoutMs <= gatewayTimeoutMs) {
    throw new Error(`IDLE_TIMEOUT_MS (${limits.idleTimeoutMs}) must be longer than GATEWAY_TIMEOUT_MS (${gatewayTimeoutMs}): a connection would be closed under a request still at work`);
  }
  return limits;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  // It used to replace the one secret signing every organization's tokens. Secrets are now per organization, in
  // the database (rotate-signing-key); a value left set would make an operator believe it still does something.
  if (env.JWT_SECRET !== undefined) {
    throw new Error('JWT_SECRET is no longer used: each organization has its own signing keys in the database (see rotate-signing-key). Unset it.');
  }
  const host = env.HOST || '127.0.0.1';
  const gatewayTimeoutMs = int(env.GATEWAY_TIMEOUT_MS, 30_000, 'GATEWAY_TIMEOUT_MS');
  const port = int(env.PORT, 8080, 'PORT');
  const publicUrl = (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  return {
    host,
    port,
    dataDir: env.DATA_DIR || './data',
    publicUrl,
    embedUrl: (env.EMBED_URL || `${publicUrl}/embed`).replace(/\/+$/, ''),
    embedFrameAncestors: env.EMBED_FRAME_ANCESTORS?.trim() || "'self'",
    gatewayTimeoutMs,
    stallTimeoutMs: int(env.STALL_TIMEOUT_MS, 60_000, 'STALL_TIMEOUT_MS'),
    changeHorizonSeconds: int(env.CHANGE_HORIZON_DAYS, 30, 'CHANGE_HORIZON_DAYS') * 86_400,
    changesPageBytes: int(env.CHANGES_PAGE_BYTES, CHANGES_PAGE_BYTES, 'CHANGES_PAGE_BYTES'),
    changeFeed: env.CHANGE_FEED !== 'off',
    faults: env.FAULTS === '1' || env.FAULTS === 'database',
    faultsShared: env.FAULTS === 'database',
    connections: connectionLimits(env, gatewayTimeoutMs),
    parcelBodyLimitBytes: int(env.PARCEL_BODY_LIMIT_BYTES, DEFAULT_PARCEL_BODY_LIMIT_BYTES, 'PARCEL_BODY_LIMIT_BYTES'),
    bodyLimitBytes: int(env.BODY_LIMIT_BYTES, DEFAULT_BODY_LIMIT_BYTES, 'BODY_LIMIT_BYTES'),
    accountHeader: (env.ACCOUNT_HEADER || 'Service-Account').toLowerCase(),
    synchronous: env.SQLITE_SYNCHRONOUS === 'NORMAL' ? 'NORMAL' : 'FULL',
    databaseUrl: databaseUrl(env.DATABASE_URL),
    readDatabaseUrl: readDatabaseUrl(env),
    readMaxLagMs: int(env.READ_MAX_LAG_MS, 1_000, 'READ_MAX_LAG_MS'),
    pgPoolMax: int(env.PG_POOL_MAX, 10, 'PG_POOL_MAX'),
    validationWorkers: int(env.VALIDATION_WORKERS, availableParallelism(), 'VALIDATION_WORKERS'),
    logLevel: env.LOG_LEVEL || 'warn',
  };
}

export const dbFile = (dataDir: string): string => join(dataDir, 'furrow-service.db');
