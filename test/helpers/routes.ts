// The routes a fastify app really registered, read from the router itself (printRoutes), not from a list kept by hand.
import type { FastifyInstance } from 'fastify';

/**
 * Every route, parsed from printRoutes' tree ("├── /api/parcels (POST, GET, HEAD)", children indented by four
 * columns), as 'METHOD /path' with fastify's ':param' and no trailing slash.
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?\s*$/u.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    if (!m[3]) continue;
    const path = stack.join('').replace(/\/+$/, '') || '/';
    for (const method of m[3].split(',').map((s) => s.trim())) out.push(`${method} ${path}`);
  }
  return out;
}
