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
