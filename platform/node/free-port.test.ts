import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePorts } from './free-port.ts';

describe('freePorts', () => {
  it('gives different ports, each free once returned', async () => {
    for (let round = 0; round < 20; round++) {
      const ports = await freePorts(3);
      expect(new Set(ports).size).toBe(3);
      for (const port of ports) {
        const s = createServer();
        await new Promise<void>((ok, fail) => { s.once('error', fail); s.listen(port, '127.0.0.1', () => ok()); });
        await new Promise((ok) => s.close(ok));
      }
    }
  });
});
