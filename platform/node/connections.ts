// Bounds on an HTTP server's connections and on clients too slow to serve, for every server this project runs (the
// service, the app's loopback host). Without them Node waits 300 s for a request to arrive (fastify: for ever), and
// anyone able to open sockets holds the server's memory and descriptors with bodies trickled in a byte at a time.
import { readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** The request line and headers must have arrived within this (408 after). */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived within this (408 after; 0: no limit). */
  requestTimeoutMs: number;
  /** A connection on which no byte moves either way for this long is closed (0: never). */
  idleTimeoutMs: number;
  /** Connections open at once, all clients together; a new one past it is turned away (0: no bound). */
  maxConnections: number;
  /** Connections open at once from one address (0: no bound, as behind a load balancer, where all share one). */
  maxConnectionsPerAddress: number;
}

/**
 * The options of http.createServer that carry the request timeouts. Node checks them every
 * `connectionsCheckingInterval`, 30 s by default: checked every second, a trickled body is cut within a second of
 * its limit.
 */
export function httpServerOptions(limits: ConnectionLimits): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.requestTimeoutMs ? Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) : limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: 1000,
  };
}

/** Why a connection is turned away, in words for the client and for the log. */
export interface TurnedAway { message: string; log: string }

/**
 * Counts the open connections, in all and per address, and hands a connection past either bound to `turnAway`
 * (which answers it) before any byte of its request is read, then closes it. `log` hears of it once a minute at
 * most: a flood must not become a flood of log lines.
 */
export function boundConnections(server: Server, limits: ConnectionLimits, turnAway: (socket: Socket, why: TurnedAway) => void, log: (line: string) => void = () => {}): void {
  let open = 0;
  const perAddress = new Map<string, number>();
  let logged = 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const mine = perAddress.get(address) ?? 0;
    const overall = limits.maxConnections > 0 && open >= limits.maxConnections;
    if (overall || (limits.maxConnectionsPerAddress > 0 && mine >= limits.maxConnectionsPerAddress)) {
      const why: TurnedAway = overall
        ? { message: `${open} connections are open, the limit (MAX_CONNECTIONS)`, log: `${open} open (MAX_CONNECTIONS ${limits.maxConnections})` }
        : { message: `Too many connections from your address (${mine}, the limit is MAX_CONNECTIONS_PER_ADDRESS)`, log: `${mine} open from ${address} (MAX_CONNECTIONS_PER_ADDRESS ${limits.maxConnectionsPerAddress})` };
      const now = Date.now();
      if (now - logged > 60_000) {
        logged = now;
        log(`turning connections away: ${why.log}`);
      }
      turnAway(socket, why);
      socket.destroy();
      return;
    }
    open++;
    perAddress.set(address, mine + 1);
    socket.once('close', () => {
      open--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
}

/** This process's limit of open files (the soft RLIMIT_NOFILE, from /proc on Linux); null where it cannot be read. */
export function openFilesLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * The default bound on connections: 1,000, or fewer where the limit of open files would not leave a quarter of it
 * (at least 128) to the rest of the process — its databases and their WALs, a streamed listing's own connection, the
 * validation threads, the log. At `ulimit -n 256`, 220 connections left none: new clients were reset and the farm
 * listing answered 500.
 */
export function defaultMaxConnections(limit: number | null): number {
  if (limit === null) return 1000;
  return Math.max(16, Math.min(1000, limit - Math.max(128, Math.floor(limit / 4))));
}

/** Whether this process has (nearly) all the files it may open: a failure to open one is then for want of descriptors. */
export function outOfDescriptors(limit: number | null): boolean {
  try {
    return limit !== null && readdirSync('/proc/self/fd').length >= limit - 4;
  } catch (err) {
    // Listing the descriptors takes one: none left.
    return (err as NodeJS.ErrnoException).code === 'EMFILE' || (err as NodeJS.ErrnoException).code === 'ENFILE';
  }
}
