// Response serialization: Fastify's own compiler (fast-json-stringify), given for each response only
// the shared schemas that response refers to.
//
// Why: for every response schema it compiles, fast-json-stringify checks each shared schema it is
// handed against the JSON Schema meta-schema and registers it again. Handed all of them (about 60),
// that was quadratic: 2-4 s of CPU at every start of the API, almost all of `ready()`.
import fastJsonStringify, { type Options, type Schema as FjsSchema } from 'fast-json-stringify';
import type { FastifyServerOptions } from 'fastify';

type Schema = Record<string, unknown>;

/** The `$id`s of the shared schemas `schema` refers to, directly or through one another. */
function referencedIds(schema: unknown, shared: Record<string, Schema>, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const s of schema) referencedIds(s, shared, found);
  } else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema as Schema)) {
      if (key === '$ref' && typeof value === 'string') {
        const id = value.split('#')[0] ?? '';
        if (id && !found.has(id) && shared[id]) {
          found.add(id);
          referencedIds(shared[id], shared, found);
        }
      } else referencedIds(value, shared, found);
    }
  }
  return found;
}

type Serialize = (data: unknown) => string;

// Every app of a process (the tests and benchmarks build many) reuses a serializer compiled for the same
// response schema, shared schemas and options (the same objects).
const compiled = new WeakMap<
  Schema,
  { own: Record<string, Schema>; opts: Options | undefined; serialize: Serialize }[]
>();

function sameSchemas(a: Record<string, Schema>, b: Record<string, Schema>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function serializerFor(externalSchemas: Record<string, Schema> | undefined, serializerOpts: Options | undefined) {
  const shared = externalSchemas ?? {};
  return ({ schema }: { schema: Schema }): Serialize => {
    const ids = referencedIds(schema, shared);
    // A response schema that is itself a shared one is compiled as the root (as Fastify's own compiler does).
    if (typeof schema.$id === 'string') ids.delete(schema.$id);
    const own: Record<string, Schema> = {};
    for (const id of ids) own[id] = shared[id]!;
    const earlier = compiled.get(schema) ?? [];
    const found = earlier.find((c) => c.opts === serializerOpts && sameSchemas(c.own, own));
    if (found) return found.serialize;
    const serialize = fastJsonStringify(schema as unknown as FjsSchema, {
      ...serializerOpts,
      schema: own as unknown as Record<string, FjsSchema>,
    });
    compiled.set(schema, [...earlier, { own, opts: serializerOpts, serialize }]);
    return serialize;
  };
}

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;
export const buildSerializer = serializerFor as unknown as BuildSerializer;
