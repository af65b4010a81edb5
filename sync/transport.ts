// Transport failures (no HTTP answer) and whether the request may have reached the service: the difference between
// "certainly not sent, try again later" and "outcome unknown, settle it before sending anything again".

import type { buildConnector as Connectors } from 'undici';
import { buildConnector } from '../platform/node/undici.ts';

export interface NetworkErrorInit {
  /** The request may have been written: a write's outcome is unknown. False: it provably never left. */
  sent: boolean;
  /** What went wrong, for people: "connection refused", "no answer in time". */
  reason: string;
  /** The service could not be reached at all (the connect phase failed). */
  unreachable?: boolean;
  /** Not tried: the service was unreachable a moment ago and its retry time has not come (no retry is spent). */
  notTried?: boolean;
  /**
   * Connected and sent, and no answer began within the client's timeout (or the request's deadline): the service
   * accepts connections and does not answer (hung, overloaded), which is neither offline nor a refusal.
   */
  silent?: boolean;
  cause?: unknown;
}

/** A request that got no HTTP answer. */
/** The reason of a NetworkError for an answer cut at the client's answer cap. */
export const ANSWER_TOO_LARGE = 'the answer was too large';

export class NetworkError extends Error {
  readonly sent: boolean;
  readonly reason: string;
  readonly unreachable: boolean;
  readonly notTried: boolean;
  readonly silent: boolean;

  constructor(message: string, init: NetworkErrorInit) {
    super(message, { cause: init.cause });
    this.name = 'NetworkError';
    this.sent = init.sent;
    this.reason = init.reason;
    this.unreachable = init.unreachable ?? false;
    this.notTried = init.notTried ?? false;
    this.silent = init.silent ?? false;
  }
}

/** Errors of the connect phase (DNS, TCP, TLS handshake, connect timeout): no byte of any request was written. */
const connectPhase = new WeakSet<object>();

/** undici's connector, with every error it reports marked as a connect-phase error. */
export function markingConnector(timeoutMs: number): Connectors.connector {
  const connect = buildConnector({ timeout: timeoutMs });
  return (opts, callback) => connect(opts, (...args) => {
    if (args[0]) connectPhase.add(args[0]);
    callback(...args);
  });
}

/** Codes only the connect phase raises: the fallback for a dispatcher that is not ours (a test's, the token request's). */
const CONNECT_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused', ENOTFOUND: 'host not found', EAI_AGAIN: 'name lookup failed (temporarily)',
  EHOSTUNREACH: 'host unreachable', ENETUNREACH: 'network unreachable', UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
};
const AFTER_CONNECT: Readonly<Record<string, string>> = {
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time', UND_ERR_BODY_TIMEOUT: 'the answer stalled', UND_ERR_SOCKET: 'connection closed before the answer',
  ECONNRESET: 'connection reset', EPIPE: 'connection closed while sending', UND_ERR_ABORTED: 'request aborted',
};

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.cause?.code === 'string' ? e.cause.code : '';
}

/**
 * Whether a failed request may have reached the service, and why it failed in words. Only what provably never left
 * is certain: an error of the connect phase. Anything later (a reset, a timeout) may follow a request the service
 * received and acted on.
 */
export function classifyTransportError(err: unknown): { sent: boolean; unreachable: boolean; reason: string; silent?: boolean } {
  const code = errorCode(err);
  const known = CONNECT_CODES[code];
  if (known !== undefined || (typeof err === 'object' && err !== null && connectPhase.has(err))) {
    return { sent: false, unreachable: true, reason: known ?? `TLS or connect failure (${code || (err as Error).message})` };
  }
  return { sent: true, unreachable: false, reason: AFTER_CONNECT[code] ?? (code || (err instanceof Error ? err.message : String(err))), ...(code === 'UND_ERR_HEADERS_TIMEOUT' ? { silent: true } : {}) };
}
