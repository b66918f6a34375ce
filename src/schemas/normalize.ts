// Request bodies (plugins/app/http.ts) and stored Agent definitions: body property names match case-insensitively (clients send `Parallelism`,
// `InputParameters`...), and string enums match case-insensitively (with declared aliases), both
// rewritten to the schema's canonical spelling before validation. Unknown names stay as sent so
// that `additionalProperties: false` rejects them.
import type { TSchema } from '@sinclair/typebox';

type JsonSchema = TSchema & {
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  $ref?: string;
  $id?: string;
  'x-aliases'?: Record<string, string>;
};

export type SchemaResolver = (ref: string) => JsonSchema | undefined;

function enumValues(schema: JsonSchema): string[] | null {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return schema.enum;
  if (Array.isArray(schema.anyOf)) {
    const consts = schema.anyOf.map((s) => s.const).filter((c): c is string => typeof c === 'string');
    if (consts.length > 0 && consts.length === schema.anyOf.filter((s) => s.type !== 'null').length) return consts;
  }
  return null;
}

export function normalizeValue(
  value: unknown,
  schema: JsonSchema | undefined,
  resolve: SchemaResolver,
  depth = 0,
): unknown {
  if (!schema || depth > 16) return value;
  if (schema.$ref) {
    const alias = typeof value === 'string' ? schema['x-aliases']?.[value.toLowerCase()] : undefined;
    return alias ?? normalizeValue(value, resolve(schema.$ref), resolve, depth + 1);
  }
  if (typeof value === 'string') {
    if (Array.isArray(schema.anyOf) && !enumValues(schema)) {
      // A nullable enum (`anyOf: [$ref, null]`): normalize against the branch that is an enum.
      for (const branch of schema.anyOf) {
        const alias = branch['x-aliases']?.[value.toLowerCase()];
        if (alias) return alias;
        const resolved = branch.$ref ? resolve(branch.$ref) : branch;
        if (resolved && enumValues(resolved)) return normalizeValue(value, resolved, resolve, depth + 1);
      }
    }
    const values = enumValues(schema);
    if (values && !values.includes(value)) {
      const lower = value.toLowerCase();
      const alias = schema['x-aliases']?.[lower];
      if (alias) return alias;
      const hit = values.find((v) => v.toLowerCase() === lower);
      if (hit) return hit;
    }
    return value;
  }
  if (Array.isArray(value)) {
    return schema.items ? value.map((v) => normalizeValue(v, schema.items, resolve, depth + 1)) : value;
  }
  if (value && typeof value === 'object') {
    let props = schema.properties;
    if (!props && Array.isArray(schema.anyOf)) {
      props = schema.anyOf.map((s) => (s.$ref ? resolve(s.$ref) : s)).find((s) => s?.properties)?.properties;
    }
    if (!props) return value;
    const canonical = new Map(Object.keys(props).map((k) => [k.toLowerCase(), k]));
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const name = canonical.get(key.toLowerCase()) ?? key;
      // An exact-case property wins over a differently-cased duplicate.
      if (name in out && key !== name) continue;
      out[name] = normalizeValue(v, props[name], resolve, depth + 1);
    }
    return out;
  }
  return value;
}
