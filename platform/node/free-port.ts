// A TCP port free on 127.0.0.1 right now (the OS picks it; it is released before it is returned, so another
// process could take it first: fine for tests, benchmarks and the launcher, which bind it at once).
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `n` different free ports: each is held until all are chosen. Two freePort() calls in a row may return the same
 * port (the first is released before the second is asked for, and the OS may hand it out again): a launcher given
 * the same port for its service and its app failed with EADDRINUSE in CI.
 */
export async function freePorts(n: number): Promise<number[]> {
  const held: ReturnType<typeof createServer>[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = createServer();
      held.push(s);
      await new Promise<void>((ok, fail) => { s.once('error', fail); s.listen(0, '127.0.0.1', () => ok()); });
    }
    return held.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((s) => new Promise((ok) => (s.listening ? s.close(ok) : ok(undefined)))));
  }
}

/** `preferred` when it is free on 127.0.0.1 right now (the app's port of its last start), else any free port. */
export function portPreferring(preferred: number | null): Promise<number> {
  if (!preferred || !Number.isInteger(preferred) || preferred < 1024 || preferred > 65535) return freePort();
  return new Promise((ok) => {
    const s = createServer();
    s.once('error', () => ok(freePort()));
    s.listen(preferred, '127.0.0.1', () => s.close(() => ok(preferred)));
  });
}
