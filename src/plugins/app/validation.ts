// Request validation: JSON bodies are validated strictly (a string is not an integer, 0 is not
// null), while path and query values, which are always text, are coerced to their types.
//
// Three rules hold for every route, present and future, without each schema repeating them
// (so that no input reaches PostgreSQL that it would reject):
// - no string (value or property name) holds U+0000 or an unpaired surrogate: PostgreSQL refuses
//   NUL in text and both in jsonb;
// - an integer without explicit bounds is an int32 (every id column is one); `format: 'int64'`
//   widens it to the safe-integer range;
// - an integer in a path or query is written canonically (`12`, not `0x0c`, `+12`, `12.0`, `012`).
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyServerOptions } from 'fastify';
import { INT32_MAX, INT32_MIN } from '../../schemas/common.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Schema = Record<string, unknown>;

function isIntegerSchema(schema: Schema): boolean {
  const type = schema.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}

/** A copy of the schema where every unbounded integer gets the int32 (or int64-safe) range. */
function withIntegerBounds<T>(schema: T): T {
  if (Array.isArray(schema)) return (schema as unknown[]).map((s) => withIntegerBounds(s)) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) out[key] = withIntegerBounds(value);
  if (isIntegerSchema(out)) {
    const wide = out.format === 'int64';
    if (out.minimum === undefined && out.exclusiveMinimum === undefined)
      out.minimum = wide ? Number.MIN_SAFE_INTEGER : INT32_MIN;
    if (out.maximum === undefined && out.exclusiveMaximum === undefined)
      out.maximum = wide ? Number.MAX_SAFE_INTEGER : INT32_MAX;
  }
  return out as T;
}

// An unpaired high or low surrogate: JSON.stringify writes it as `\udXXX`, which jsonb refuses.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Cheap pre-check: almost every string has neither a NUL nor a surrogate.
// eslint-disable-next-line no-control-regex -- finding U+0000 is the point
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

function unsafeReason(text: string): string | null {
  if (!SUSPECT.test(text)) return null;
  if (text.includes('\u0000')) return 'must not contain NUL characters (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates';
  return null;
}

const pointerEscape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1').replaceAll('\u0000', '\\u0000');

/** The first string (or property name) PostgreSQL would refuse, as an Ajv-style error. */
function findUnsafeText(value: unknown): ErrorObject | null {
  // The path is built only for the value found: most bodies have none, and large ones have thousands of strings.
  const path: string[] = [];
  const found = scan(value, path, 0);
  if (!found) return null;
  const instancePath = path
    .reverse()
    .map((k) => `/${pointerEscape(k)}`)
    .join('');
  return { instancePath, schemaPath: '#', keyword: 'safeText', params: {}, message: found };
}

function scan(value: unknown, path: string[], depth: number): string | null {
  if (typeof value === 'string') return unsafeReason(value);
  if (depth > 64 || !value || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = scan(value[i], path, depth + 1);
      if (found) {
        path.push(String(i));
        return found;
      }
    }
    return null;
  }
  for (const key in value as Record<string, unknown>) {
    const reason = unsafeReason(key);
    if (reason) return `has a property name that ${reason}`;
    const found = scan((value as Record<string, unknown>)[key], path, depth + 1);
    if (found) {
      path.push(key);
      return found;
    }
  }
  return null;
}

const CANONICAL_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/** Names of the top-level properties of a params/querystring schema that are integers (nullable too). */
function integerProperties(schema: Schema): string[] {
  const props = schema.properties as Record<string, Schema> | undefined;
  if (!props) return [];
  return Object.entries(props)
    .filter(([, s]) => isIntegerSchema(s) || (Array.isArray(s.anyOf) && (s.anyOf as Schema[]).some(isIntegerSchema)))
    .map(([name]) => name);
}

function nonCanonicalInteger(data: unknown, names: string[]): ErrorObject | null {
  if (!data || typeof data !== 'object') return null;
  for (const name of names) {
    const raw = (data as Record<string, unknown>)[name];
    for (const v of Array.isArray(raw) ? raw : [raw]) {
      if (typeof v === 'string' && !CANONICAL_INTEGER.test(v)) {
        return {
          instancePath: `/${name}`,
          schemaPath: '#',
          keyword: 'canonicalInteger',
          params: {},
          message: 'must be an integer written in decimal digits (e.g. 12)',
        };
      }
    }
  }
  return null;
}

function makeAjv(coerceTypes: Options['coerceTypes'], schemas: TSchema[]): Ajv {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, coerceTypes, allErrors: false, strict: false });
  addFormats(ajv);
  ajv.addKeyword('x-aliases');
  for (const s of schemas) ajv.addSchema(withIntegerBounds(s));
  return ajv;
}

// Every app of a process (the tests and benchmarks build many) shares its Ajv instances and their
// compiled validators when its shared schemas are the same objects: building them was about a quarter
// of an app's start.
// (A plugin that adds schemas has a set of its own, so a process holds a few.)
const built: { schemas: TSchema[]; bodyAjv: Ajv; textAjv: Ajv }[] = [];
function ajvsFor(schemas: TSchema[]) {
  const same = (b: TSchema[]) => b.length === schemas.length && b.every((s, i) => s === schemas[i]);
  let found = built.find((b) => same(b.schemas));
  if (!found) built.push((found = { schemas, bodyAjv: makeAjv(false, schemas), textAjv: makeAjv('array', schemas) }));
  return found;
}

// Ajv reuses what it compiled for the same schema object, so each route schema is bounded once.
const bounded = new WeakMap<Schema, Schema>();
function boundedOnce(schema: Schema): Schema {
  let out = bounded.get(schema);
  if (!out) bounded.set(schema, (out = withIntegerBounds(schema)));
  return out;
}

type ValidatorFn = ((data: unknown, ctx?: unknown) => boolean) & { errors?: ErrorObject[] | null };
type CompilerInput = { schema: unknown; httpPart?: string };

/**
 * Fastify's `schemaController.compilersFactory.buildValidator`: called for every context that has
 * schemas (a plugin calling `addSchema` gets its own), so every route, now and later, is validated
 * by these rules. (`setValidatorCompiler` on the root would be lost by such a plugin.)
 */
function validatorFor(externalSchemas: Record<string, unknown> | undefined) {
  const { bodyAjv, textAjv } = ajvsFor(Object.values(externalSchemas ?? {}) as TSchema[]);
  return ({ schema, httpPart }: CompilerInput) => {
    const isBody = httpPart === 'body';
    const validate = (isBody ? bodyAjv : textAjv).compile(boundedOnce(schema as Schema));
    const integers = isBody ? [] : integerProperties(schema as Schema);
    const check: ValidatorFn = (data, ctx) => {
      const refused = findUnsafeText(data) ?? nonCanonicalInteger(data, integers);
      if (refused) {
        check.errors = [refused];
        return false;
      }
      const ok = ctx === undefined ? validate(data) : validate(data, ctx as never);
      check.errors = validate.errors ?? null;
      return ok;
    };
    // Lets Fastify hand Ajv the parent object, so a coerced root value is written back.
    (check as unknown as { schemaEnv: unknown }).schemaEnv = validate.schemaEnv;
    return check;
  };
}

type BuildValidator = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;
export const buildValidator = validatorFor as unknown as BuildValidator;
