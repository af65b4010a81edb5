import { FormatRegistry, type TSchema, type Static } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { isCalendarDate } from '../crops/validate.ts';

// TypeBox refuses unknown formats; register the ones the wire schemas use, so the sync engine and the app
// check every response against the same schemas the service validates with.
const formats: Record<string, (v: string) => boolean> = {
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  date: isCalendarDate,
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  uri: (v) => /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v),
};
for (const [name, fn] of Object.entries(formats)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, fn);

const cache = new WeakMap<TSchema, TypeCheck<TSchema>>();

export class SchemaMismatch extends Error {
  constructor(what: string, readonly problems: string[]) {
    super(`${what} does not match the API schema: ${problems.slice(0, 3).join('; ')}`);
    this.name = 'SchemaMismatch';
  }
}

/** Checks a value against a wire schema; returns it typed, or throws SchemaMismatch naming the problems. */
export function expectShape<T extends TSchema>(schema: T, value: unknown, what: string): Static<T> {
  let check = cache.get(schema) as TypeCheck<T> | undefined;
  if (!check) {
    check = TypeCompiler.Compile(schema);
    cache.set(schema, check as unknown as TypeCheck<TSchema>);
  }
  if (check.Check(value)) return value;
  throw new SchemaMismatch(what, [...check.Errors(value)].slice(0, 5).map((e) => `${e.path || '/'} ${e.message}`));
}

/** The problems of a value against a schema, none when it matches (the RPC server's argument check, core/rpc.ts). */
export function problemsOf(schema: TSchema, value: unknown): string[] {
  let check = cache.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    cache.set(schema, check);
  }
  return check.Check(value) ? [] : [...check.Errors(value)].slice(0, 5).map((e) => `${e.path || '/'} ${e.message}`);
}
