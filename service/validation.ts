import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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
  return (data: unknown) => (fn(data) ? { value: data } : { error: Object.assign(new Error('validation'), { validation: fn.errors }) });
};
