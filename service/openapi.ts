// OpenAPI 3.0.3 has no `type: 'null'`: rewrite the schemas' `anyOf: [X, {type: 'null'}]` into X + `nullable: true`.

type Json = unknown;

const isNull = (s: Json) => typeof s === 'object' && s !== null && (s as Record<string, unknown>).type === 'null';

export function toOpenApi30(node: Json): Json {
  if (Array.isArray(node)) return node.map(toOpenApi30);
  if (typeof node !== 'object' || node === null) return node;
  const obj = node as Record<string, unknown>;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = obj[key];
    if (Array.isArray(alts) && alts.some(isNull)) {
      const rest = alts.filter((a) => !isNull(a));
      const { [key]: _drop, ...others } = obj;
      const base = rest.length === 1 ? (toOpenApi30(rest[0]) as Record<string, unknown>) : { [key]: rest.map(toOpenApi30) };
      return { ...toOpenApi30Object(others), ...base, nullable: true };
    }
  }
  return toOpenApi30Object(obj);
}

function toOpenApi30Object(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = toOpenApi30(v);
  if (out.type === 'null') return { nullable: true };
  return out;
}
