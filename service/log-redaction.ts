// What keeps credentials out of the service's log, at every level (trace to fatal). Why: a log is read by
// more people and kept longer than the database, and the embedded map's auth_id is a credential carried in the
// URL itself (anyone holding it sees the account's parcels on /embed/), while fastify logs every request's URL
// at info. The API key, bearer tokens, the admin panel's session cookie, CSRF token and password are credentials
// too. Three layers, all wired into the logger by buildApp (app.ts):
// - REDACT_PATHS: pino censors these fields of logged objects (headers, bodies, queries);
// - serializeRequest: the request line's URL with the value of every credential parameter censored, the rest
//   (path, other parameters) kept readable: `/embed/?auth_id=[redacted]&metadata[crop]=wheat`;
// - scrubLogLine: the last word on every line written (pino's streamWrite hook), for URLs and credentials in
//   messages, error messages and stacks (fastify's "Route GET:/… not found", "Reply was already sent … in /…").
import type { FastifyRequest } from 'fastify';
import { COOKIE } from './web/admin/http.ts';

export const CENSOR = '[redacted]';

/**
 * Fields pino censors wherever they are logged as objects. fastify's own lines log none of them (its request
 * serializer is serializeRequest below); these guard a `log.x({ headers, body, query })` written later.
 */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie',
  '*.headers["x-api-key"]', '*.headers.authorization', '*.headers.cookie', '*.headers["set-cookie"]',
  'api_key', '*.api_key', 'account_access', '*.account_access', 'auth_id', '*.auth_id',
  'password', '*.password', '_csrf', '*._csrf',
  // Node's clientError carries the raw bytes it could not parse (the request line and headers) as a Buffer,
  // which no text pattern would see.
  'rawPacket', '*.rawPacket',
];

/**
 * Names of parameters (query, form, cookie) and JSON fields whose value is a credential, compared after
 * percent-decoding, in lower case and without '_' or '-': the service decodes a query parameter's name
 * (`auth%5Fid` and `%61uth_id` are its auth_id), and a spelling it does not read as one is censored all the same.
 */
const SECRET_NAMES = new Set([
  'authid', 'apikey', 'xapikey', 'accountaccess', 'accesstoken', 'refreshtoken', 'token', 'password', 'secret',
  'csrf', 'csrftoken', COOKIE,
].map((n) => n.replace(/[-_]/g, '')));

const isSecretName = (raw: string): boolean => {
  const decoded = raw.replace(/\+/g, ' ').replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return SECRET_NAMES.has(decoded.trim().toLowerCase().replace(/[-_]/g, ''));
};

/**
 * A parameter `name=value` wherever it is: after '?', '&', '#' (the router reads a query after '#' too), ';', '/'
 * (a malformed URL's path), a space or a quote (a message, a cookie header). No part spans a delimiter, so a
 * credential parameter after an ordinary one is found on its own; no credential the service issues holds one.
 * '\' ends it too: inside a log line (JSON text) it starts the escape of a closing quote. The '=' may be
 * percent-encoded (`auth_id%3D…` is not read as the auth_id, but holds it all the same).
 */
const SEGMENT = /(^|[?#&;/\s"'\\])([^?#&;/\s"'\\]+)/g;
/** Not global: exec and test start at the beginning every time. */
const EQUALS = /=|%3d/i;

function redactParam(segment: string, before: string, text: string): string {
  const eq = EQUALS.exec(text);
  if (!eq || eq.index === 0 || !isSecretName(text.slice(0, eq.index))) return segment;
  return `${before}${text.slice(0, eq.index + eq[0].length)}${CENSOR}`;
}

/** A JSON field `"name":"value"` of a log line, the value with its escapes. */
const JSON_FIELD = /"([^"\\]{1,100})":"((?:[^"\\]|\\.)*)"/g;
/** What credentials look like wherever they appear: an Authorization scheme's value, a JWT, an API key's secret part. */
const AUTH_SCHEME = /\b(bearer|basic)(\s+)[^\s"'\\,;]+/gi;
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?/g;
/** `fk_<8 hex>_<secret>`: the prefix (which lists and revokes the key) stays, to tell keys apart. */
const API_KEY = /(fk_[0-9a-f]{8})_[A-Za-z0-9_-]+/g;

/** Censors every credential in a piece of text (a URL, a message, a whole log line). */
export function redactText(text: string): string {
  return (EQUALS.test(text) ? text.replace(SEGMENT, redactParam) : text)
    .replace(AUTH_SCHEME, `$1$2${CENSOR}`)
    .replace(JWT, CENSOR)
    .replace(API_KEY, `$1_${CENSOR}`);
}

/** A request target with its credentials censored, and the user:password of an absolute-form target. */
export const redactUrl = (url: string): string =>
  redactText(url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#@]*@/, `$1${CENSOR}@`));

/** A serialized log line (pino's JSON) with every credential censored, for pino's streamWrite hook. */
export function scrubLogLine(line: string): string {
  return redactText(line.replace(JSON_FIELD, (m, name: string) => (isSecretName(name) ? `"${name}":"${CENSOR}"` : m)));
}

/** fastify's request serializer (method, url, version, host, remote address and port), the URL redacted. */
export function serializeRequest(req: FastifyRequest): Record<string, unknown> {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
