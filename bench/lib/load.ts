// A closed-loop load generator on undici 7: `concurrency` workers, each with its own keep-alive connection,
// send the next request as soon as their previous response has been read in full.
import { Pool } from 'undici';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
}

export interface LoadResult {
  requests: number;
  elapsed_ms: number;
  /** Per request, in send order: from issuing it to having read the whole response body. */
  latencies: number[];
  statuses: Record<string, number>;
  response_bytes: number;
  first_error: string | null;
}

export function pool(url: string, connections: number): Pool {
  // pipelining 1: one request in flight per connection, as an HTTP/1.1 client normally does.
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000, bodyTimeout: 120_000, headersTimeout: 120_000 });
}

export async function runLoad(p: Pool, count: number, spec: (i: number) => RequestSpec, concurrency: number, expected: number): Promise<LoadResult> {
  const latencies = new Array<number>(count).fill(NaN);
  const statuses: Record<string, number> = {};
  let next = 0;
  let bytes = 0;
  let firstError: string | null = null;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const s = spec(i);
      const start = performance.now();
      try {
        const res = await p.request({ method: s.method, path: s.path, headers: s.headers, body: s.body });
        const buf = await res.body.arrayBuffer();
        latencies[i] = performance.now() - start;
        bytes += buf.byteLength;
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode !== expected && firstError === null) {
          firstError = `${s.method} ${s.path} → ${res.statusCode}: ${Buffer.from(buf).toString('utf8', 0, Math.min(buf.byteLength, 500))}`;
        }
      } catch (err) {
        statuses.error = (statuses.error ?? 0) + 1;
        if (firstError === null) firstError = `${s.method} ${s.path} → ${(err as Error).message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { requests: count, elapsed_ms: performance.now() - t0, latencies: latencies.filter((x) => !Number.isNaN(x)), statuses, response_bytes: bytes, first_error: firstError };
}
