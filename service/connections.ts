// The service's bounds on slow clients and connections (docs/api.md, "Timeouts and connections"), over the ones every
// server of the project shares (platform/node/connections.ts): fastify's options for them, and the answer to a
// connection turned away, a 503 in the service's error format with Retry-After.
import type { Socket } from 'node:net';
import { ErrorCode } from '../core/errors.ts';
import { httpServerOptions, type ConnectionLimits, type TurnedAway } from '../platform/node/connections.ts';
import { writeRawAnswer } from './headers.ts';

export type { ConnectionLimits } from '../platform/node/connections.ts';

/** How soon a client turned away for too many connections is told to try again. */
const BUSY_RETRY_AFTER_S = 2;

/** fastify's options for the limits: it turns Node's request timeout off unless told (`requestTimeout` 0). */
export function serverTimeouts(limits: ConnectionLimits): { requestTimeout: number; connectionTimeout: number; http: ReturnType<typeof httpServerOptions> } {
  return { requestTimeout: limits.requestTimeoutMs, connectionTimeout: limits.idleTimeoutMs, http: httpServerOptions(limits) };
}

export function turnAway(socket: Socket, why: TurnedAway): void {
  writeRawAnswer(socket, 503, ErrorCode.tooManyConnections, `${why.message}: try again in a moment`, { 'Retry-After': String(BUSY_RETRY_AFTER_S) });
}
