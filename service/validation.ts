import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { NoQuery } from '../core/schemas/common.ts';

// ajv-formats is CommonJS with a default export; under NodeNext its namespace wraps it.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;

/** Marks a request schema that is documented in OpenAPI but checked by core/ (which names every problem). */
export const CORE_VALIDATED = 'x-validated-by-core';

function makeAjv(coerce: boolean): Ajv {
  // Bodies are strict: unknown fields are an error, "12" is not 12. Query strings and path params only
  // carry text, so they are coerced.
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce ? 'array' : false, removeAdditional: false, useDefaults: true, strict: false });
  addFormats(ajv);
  ajv.addKeyword({ keyword: CORE_VALIDATED });
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if ((schema as Record<string, unknown>)[CORE_VALIDATED]) return () => true;
  const fn: ValidateFunction = (httpPart === 'body' ? strict : coercing).compile(schema as object);
  const integers = httpPart === 'body' ? [] : integerProperties(schema);
  return (data: unknown) => {
    const notPlain = integers.length ? notPlainInteger(data, integers) : null;
    if (notPlain !== null) {
      return { error: Object.assign(new Error('validation'), { validation: [{ instancePath: `/${notPlain}`, keyword: 'type', message: 'must be an integer written in decimal digits', params: {} }] }) };
    }
    if (!fn(data)) return { error: Object.assign(new Error('validation'), { validation: fn.errors }) };
    const bad = httpPart === 'body' ? nonFinitePath(data) : null;
    if (bad !== null) {
      return { error: Object.assign(new Error('validation'), { validation: [{ instancePath: bad, keyword: 'type', message: 'must be a finite number', params: {} }] }) };
    }
    return { value: data };
  };
};

/**
 * JSON numbers beyond ±1.8e308 (e.g. 1e400) parse as ±Infinity, which Ajv's `number` accepts but which can
 * neither be stored meaningfully nor serialized back (the response would fail after the commit).
 * Iterative, so a deeply nested body cannot overflow the stack. Returns the first such value's path.
 */
function nonFinitePath(data: unknown): string | null {
  const stack: Array<[unknown, string]> = [[data, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return path;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) stack.push([x, `${path}/${k}`]);
    }
  }
  return null;
}

/** Names of the top-level properties a query or path schema declares as integers. */
function integerProperties(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(props).filter(([, p]) => p.type === 'integer').map(([k]) => k);
}

/** Plain decimal digits, at most 16 of them (every safe integer); the bounds themselves are the schema's. */
const PLAIN_INTEGER = /^-?(0|[1-9][0-9]{0,15})$/;

/**
 * Ajv coerces any text Number() reads: '1e20' and '1e400' (Infinity, which passes Ajv's integer check),
 * '+1', '0x10', ' 7'. Query strings and path ids carry integers as plain digits only; returns the first
 * property holding anything else.
 */
function notPlainInteger(data: unknown, names: readonly string[]): string | null {
  if (data === null || typeof data !== 'object') return null;
  for (const name of names) {
    const v = (data as Record<string, unknown>)[name];
    for (const x of Array.isArray(v) ? v : [v]) {
      if (typeof x === 'string' && !PLAIN_INTEGER.test(x)) return name;
    }
  }
  return null;
}

/**
 * Every route registered in `app`'s scope (the API's) refuses query parameters it does not declare: a route without
 * a query schema gets NoQuery, and one whose query schema would let an unknown parameter through stops the service
 * at start-up. An ignored parameter (a misspelt filter) would be answered as if the client had asked for everything.
 */
export function strictQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {});
    if (schema.querystring === undefined) schema.querystring = NoQuery;
    else if ((schema.querystring as { additionalProperties?: unknown }).additionalProperties !== false) {
      throw new Error(`${String(route.method)} ${route.url}: its query schema must refuse unknown parameters (additionalProperties: false)`);
    }
  });
}
