import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openFilesLimit, outOfDescriptors } from '../platform/node/connections.ts';
import { noRoomError } from '../platform/node/no-room.ts';
import { databaseUnreachable } from './store/postgres/unreachable.ts';
import { ErrorCode, errorBody, type ErrorDetail, INVALID_TOKEN_MESSAGE, ACCOUNT_NOT_FOUND_MESSAGE } from '../core/errors.ts';
import { someCause } from '../core/error-cause.ts';

/**
 * The HTTP status of each error code: the one place HTTP meets the codes. The store and the validators say what
 * went wrong (a code), the error handler below says it in HTTP.
 */
export const STATUS_OF: Record<ErrorCode, number> = {
  validation_failed: 400, invalid_id: 400, invalid_cursor: 400, cursor_expired: 410, invalid_parcels: 400, malformed_json: 400, account_required: 400,
  invalid_token: 401, invalid_api_key: 401, not_authenticated: 401,
  forbidden: 403, account_not_found: 403,
  not_found: 404, method_not_allowed: 405, conflict: 409, email_taken: 409,
  request_timeout: 408, payload_too_large: 413, unsupported_media_type: 415,
  internal_error: 500, too_many_connections: 503, service_busy: 503, gateway_timeout: 504, insufficient_storage: 507,
};

/** Every expected failure is an ApiError: a stable code, a message, details; the error handler answers it. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get status(): number {
    return STATUS_OF[this.code];
  }
}

export const invalidToken = () =>
  new ApiError(ErrorCode.invalidToken, INVALID_TOKEN_MESSAGE, undefined, { 'www-authenticate': 'Bearer error="invalid_token"' });
export const accountNotFound = () => new ApiError(ErrorCode.accountNotFound, ACCOUNT_NOT_FOUND_MESSAGE);
export const notFound = (what: string) => new ApiError(ErrorCode.notFound, `${what} not found`);
export const validationFailed = (message: string, errors?: ErrorDetail[]) =>
  new ApiError(ErrorCode.validationFailed, message, errors);

function fromAjv(err: FastifyError): ApiError {
  const part = err.validationContext ?? 'body';
  const errors: ErrorDetail[] = (err.validation ?? []).map((v) => {
    const base = v.instancePath.replace(/^\//, '');
    let extra = v.keyword === 'additionalProperties' ? String((v.params as { additionalProperty?: string }).additionalProperty) : '';
    // A query parameter's name is whatever the client wrote in the URL: named, but cut short.
    if (part === 'querystring' && extra.length > 60) extra = `${extra.slice(0, 60)}…`;
    const path = [part, base, extra].filter(Boolean).join('/');
    const unknown = part === 'querystring' ? 'query parameter' : 'field';
    const message = v.keyword === 'additionalProperties' ? `unknown ${unknown} '${extra}'` : `${path} ${v.message ?? 'is invalid'}`;
    return { path, code: v.keyword === 'additionalProperties' ? 'unknown_field' : v.keyword, message };
  });
  if (part === 'params') {
    return new ApiError(ErrorCode.invalidId, 'The id in the path must be a positive integer', errors);
  }
  const summary = errors[0]?.message ?? 'invalid request';
  return new ApiError(ErrorCode.validationFailed, `Invalid ${part}: ${summary}`, errors);
}

/** How long, and how much more of a refused upload, is read and thrown away so that its sender sees the answer. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * A request refused before its body was read (413 on its Content-Length, 415, an auth error): fastify answers with
 * `Connection: close`, and Node then closes a socket that still has upload bytes in flight, which the kernel turns
 * into a reset, so a client still sending (curl, fetch) often never reads the 413. Like nginx's lingering close,
 * the rest of the upload is read and discarded (the connection then stays usable), up to LINGER_MS or LINGER_BYTES,
 * after which the socket is dropped.
 */
function lingerForUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete || raw.readableEnded) return;
  void reply.removeHeader('connection');
  let discarded = 0;
  const drop = () => raw.socket?.destroy();
  const timer = setTimeout(drop, LINGER_MS);
  timer.unref();
  const done = () => clearTimeout(timer);
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) {
      done();
      drop();
    }
  });
  raw.once('end', done);
  raw.once('close', done);
  raw.resume();
}

/** How soon a client is told to try again when the database cannot be reached: a failover takes seconds. */
const DATABASE_RETRY_AFTER_S = 1;
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** How soon a client refused for a full disk is told to try again: freeing space takes someone a while. */
const DISK_FULL_RETRY_AFTER_S = 60;

/**
 * The store could not write for want of space: SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100), or the file
 * system's ENOSPC (the data folder's other files). The write's transaction rolled back whole, so the request is
 * refused (507), never half done; once space is freed the next one succeeds, without a restart.
 */
function outOfSpace(err: unknown): boolean {
  return someCause(err, (e) => noRoomError(e) || e.code === '53100');
}

/**
 * The process has no descriptor left to open a file (a streamed listing's own connection, say): EMFILE or ENFILE, or
 * SQLite's "unable to open database file" while the process is at its limit of open files.
 */
function outOfFiles(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (code === 'EMFILE' || code === 'ENFILE') return true;
  return code === 'SQLITE_CANTOPEN' && outOfDescriptors(FILES_LIMIT);
}

/** Read once, at start: when the descriptors have run out, reading it would take one more. */
const FILES_LIMIT = openFilesLimit();

/** Said in the log once a minute at most, per cause: every request fails alike until the cause is gone. */
const lastSaid = new Map<string, number>();
function sayOnce(request: FastifyRequest, cause: string, line: string): void {
  const now = Date.now();
  if (now - (lastSaid.get(cause) ?? 0) < 60_000) return;
  lastSaid.set(cause, now);
  request.log.error(line);
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    let api: ApiError;
    if (err instanceof ApiError) api = err;
    else if ((err as FastifyError).validation) api = fromAjv(err as FastifyError);
    else {
      const code = (err as FastifyError).code;
      switch (code) {
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          api = new ApiError(ErrorCode.malformedJson, `The body is not valid JSON: ${err.message}`);
          break;
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          api = new ApiError(ErrorCode.payloadTooLarge, 'The request body is too large');
          break;
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          api = new ApiError(ErrorCode.unsupportedMediaType, 'Send the body as application/json');
          break;
        case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
          // The body's length differs from its Content-Length header: a malformed request, not a media type problem.
          api = new ApiError(ErrorCode.malformedJson, 'The request body does not match its Content-Length header');
          break;
        default:
          if (err instanceof SyntaxError || (err as FastifyError).statusCode === 400) {
            api = new ApiError(ErrorCode.malformedJson, `The body could not be read: ${err.message}`);
          } else if ((err as FastifyError).statusCode === 413) {
            api = new ApiError(ErrorCode.payloadTooLarge, 'The request body is too large');
          } else if ((err as FastifyError).statusCode === 415) {
            api = new ApiError(ErrorCode.unsupportedMediaType, 'Send the body as application/json');
          } else if (outOfFiles(err)) {
            sayOnce(request, 'files', 'the service has as many files open as it may (its limit of open files, ulimit -n): requests that need one more are refused with 503 until some close; lower MAX_CONNECTIONS or raise the limit');
            api = new ApiError(ErrorCode.serviceBusy, 'The service cannot take this request right now (too many files open): try again in a moment', undefined, { 'retry-after': '5' });
          } else if (outOfSpace(err)) {
            sayOnce(request, 'disk', "the disk holding the service's data is full: writes are refused with 507 until space is freed");
            api = new ApiError(ErrorCode.insufficientStorage, "The service's disk is full: nothing of this request was written. Try again later", undefined, { 'retry-after': String(DISK_FULL_RETRY_AFTER_S) });
          } else if (databaseUnreachable(err) && SAFE_METHODS.has(request.method)) {
            // A read, which changed nothing: 503, which clients retry, as through a failover. Not a write: its
            // connection may have broken after its COMMIT was sent, and 503 says nothing was done (the sync engine
            // would send it again); a write keeps the 500 of an unknown outcome, which the engine reconciles.
            request.log.warn({ err }, 'the database could not be reached; a read answered 503');
            api = new ApiError(ErrorCode.serviceBusy, 'The service cannot reach its database right now: try again in a moment', undefined, { 'retry-after': String(DATABASE_RETRY_AFTER_S) });
          } else {
            request.log.error({ err }, 'unhandled error');
            api = new ApiError(ErrorCode.internal, 'Internal error');
          }
      }
    }
    if (api.headers) void reply.headers(api.headers);
    lingerForUnreadBody(request, reply);
    return reply.code(api.status).send(errorBody(api.code, api.message, api.errors));
  });

  // Runs no route handler and no authentication; it only names what was asked for (cut short: it is the client's text).
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody(ErrorCode.notFound, `No route for ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`)),
  );
}

export { ACCOUNT_NOT_FOUND_MESSAGE };
