// A TCP port free on 127.0.0.1 right now (the OS picks it; it is released before it is returned, so another
// process could take it first: fine for tests, benchmarks and the launcher, which bind it at once).
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    }).on('error', fail);
  });
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
