// Property-based fuzzing of every route in the OpenAPI description (so routes added
// later are covered without touching this file): hostile path, query and body values must never
// answer 5xx nor show internal text. A few hundred requests in all, through app.inject.
import fc from 'fast-check';
import * as OpenAPISampler from 'openapi-sampler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

/** Requests in all, spread over the routes (at least MIN_PER_ROUTE each). */
const BUDGET = 520;
const MIN_PER_ROUTE = 8;
const INTERNAL_TEXT =
  /prisma|invalid `|\bat [\w.<>]+ \(|node_modules|\/src\/|\.ts:\d+|stack|ECONNREFUSED|syntaxerror|typeerror|referenceerror/i;

type JsonSchema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  body: JsonSchema | null;
  isPublic: boolean;
}

let ctx: TestContext;
let spec: { paths: Record<string, Record<string, any>>; components?: unknown };
const operations: Operation[] = [];
const real: Record<string, number[]> = {};
let key = '';
let otherKey = '';

// Values PostgreSQL refuses or that overflow its types: the ones that used to reach it as 500s.
const dangerous = fc.constantFrom<unknown>(
  'a\u0000b',
  '\u0000',
  'x\ud800',
  '\udfff',
  2147483648,
  -2147483649,
  9007199254740993,
  1e308,
  'x'.repeat(3000),
);
const hostileStrings = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '',
  ' ',
  '%00',
  '\'; DROP TABLE "User";--',
  '../../etc/passwd',
  '{{x}}',
  '${x}',
  '\u202eevil',
  '🙂',
  '0x1',
  '+1',
  '1.0',
  '01',
  '1e3',
  '-0',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  'x'.repeat(3000),
  '2147483648',
  '-2147483649',
  '9223372036854775808',
  '99999999999999999999',
  '-1',
  '0',
  '=1+1',
  '@x',
  'http://127.0.0.1:1/',
);
const hostileNumbers = fc.constantFrom(
  0,
  -1,
  1,
  2147483647,
  2147483648,
  -2147483648,
  -2147483649,
  9007199254740993,
  1e308,
  -1e308,
  0.5,
  1.5,
  -0,
);
const hostileString = fc.oneof(
  { weight: 3, arbitrary: hostileStrings },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: dangerous },
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumbers },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { '\u0000': 1 }, ['a\u0000']) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
/** Good values by property name, so that a body fails on the one value mutated, not on the sample. */
const good: Record<string, unknown> = {};

/** A path or query value: a real id of the fixtures, a hostile text, or a hostile number. */
function textValue(name: string): fc.Arbitrary<string> {
  // Never revoke the fuzzing caller's own key.
  const ids = name === 'keyId' ? [] : (real[name] ?? []);
  const hostile = fc.oneof(dangerous.map(String), hostileString, hostileNumbers.map(String), fc.integer().map(String));
  return ids.length > 0
    ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...ids.map(String)) }, { weight: 1, arbitrary: hostile })
    : hostile;
}

function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80'; // an unpaired surrogate has no UTF-8 form: send the invalid bytes instead
  }
}

function resolveRef(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref as string | undefined;
  if (!ref) return schema;
  const name = ref.split('/').pop() as string;
  return (spec.components as { schemas?: Record<string, JsonSchema> })?.schemas?.[name] ?? {};
}

function bodyArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  let sample: unknown;
  try {
    sample = OpenAPISampler.sample(schema, { skipReadOnly: true, quiet: true }, spec);
  } catch {
    sample = {};
  }
  const props = Object.keys((resolveRef(schema).properties as Record<string, unknown> | undefined) ?? {});
  if (sample && typeof sample === 'object' && !Array.isArray(sample)) {
    for (const k of Object.keys(sample)) if (k in good) (sample as Record<string, unknown>)[k] = good[k];
  }
  const mutate = (count: number) =>
    fc
      .array(fc.tuple(props.length > 0 ? fc.constantFrom(...props) : fc.string({ maxLength: 8 }), hostileValue), {
        minLength: count,
        maxLength: count,
      })
      .map((changes) => {
        const base =
          sample && typeof sample === 'object' && !Array.isArray(sample)
            ? structuredClone(sample as Record<string, unknown>)
            : {};
        for (const [k, v] of changes) base[k] = v;
        return base;
      });
  return fc.oneof(
    { weight: 8, arbitrary: mutate(1) },
    { weight: 1, arbitrary: mutate(2) },
    { weight: 1, arbitrary: fc.constant(sample) },
    { weight: 1, arbitrary: hostileValue },
  );
}

const credentials = () =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant<Record<string, string | string[]>>(auth(key)) },
    { weight: 1, arbitrary: fc.constant<Record<string, string | string[]>>(auth(otherKey)) },
    {
      weight: 1,
      arbitrary: fc.constant<Record<string, string | string[]>>({
        authorization: [`ApiKey ${key}`, `ApiKey ${otherKey}`],
      }),
    },
    { weight: 1, arbitrary: hostileStrings.map((s) => ({ authorization: `ApiKey ${s.replace(/[\r\n]/g, '')}` })) },
  );

beforeAll(async () => {
  ctx = await createTestContext({ env: { RATE_LIMIT_MAX: '1000000' } });
  const org = await ctx.bootstrap();
  const other = await ctx.bootstrap();
  key = org.apiKey;
  otherKey = other.apiKey;
  const definition = {
    startUrl: 'http://127.0.0.1:9/',
    list: { selector: 'p', fields: [{ name: 'p', selector: 'p' }] },
  };
  const agent = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/agent',
    headers: auth(key),
    payload: { name: 'Fuzz', spaceId: org.spaceId, definition },
  });
  const pool = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/proxy-pools',
    headers: auth(key),
    payload: { name: 'Fuzz', proxies: ['http://93.184.216.34:3128'] },
  });
  const theirs = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/agent',
    headers: auth(otherKey),
    payload: { name: 'Theirs', spaceId: other.spaceId, definition },
  });
  Object.assign(real, {
    agentId: [agent.json().id, theirs.json().id],
    spaceId: [org.spaceId, other.spaceId],
    userId: [org.userId, other.userId],
    proxyPoolId: [pool.json().id],
    runId: [1],
    fileId: [1],
    version: [1],
  });
  Object.assign(good, {
    definition,
    spaceId: org.spaceId,
    userId: org.userId,
    proxyPoolId: pool.json().id,
    proxies: ['http://93.184.216.34:3128'],
    email: 'fuzz@example.com',
    name: 'Fuzz name',
    grant_type: 'password',
    username: 'nobody@example.com',
    password: 'not the password',
    role: 'reader',
    inputParameters: '{}',
  });

  const res = await ctx.app.inject({ method: 'GET', url: '/swagger/v1/swagger.json' });
  expect(res.statusCode).toBe(200);
  spec = res.json();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = (op.parameters ?? []) as Array<{ name: string; in: string }>;
      const bodySchema = op.requestBody?.content?.['application/json']?.schema ?? null;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        body: bodySchema,
        isPublic: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
});
afterAll(async () => ctx?.close());

describe('fuzzing every route of the OpenAPI description', () => {
  it('finds the routes', () => {
    expect(operations.length).toBeGreaterThan(25);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain('POST /oauth/token');
  });

  it('never answers 5xx nor shows internal text', async () => {
    const perRoute = Math.max(MIN_PER_ROUTE, Math.floor(BUDGET / operations.length));
    const failures: string[] = [];
    for (const op of operations) {
      const request = fc.record({
        path: fc.tuple(...op.pathParams.map((name) => textValue(name).map((v) => [name, v] as const))),
        query: fc.array(
          fc.tuple(
            op.queryParams.length > 0 ? fc.constantFrom(...op.queryParams) : fc.constant('x'),
            fc.oneof(textValue('q'), fc.constantFrom(...(real.agentId ?? [1]).map(String))),
          ),
          { maxLength: 3 },
        ),
        body: op.body ? bodyArbitrary(op.body) : fc.constant(undefined),
        headers: op.isPublic ? fc.constant<Record<string, string | string[]>>({}) : credentials(),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ path, query, body, headers }) => {
          let url = op.path;
          for (const [name, value] of path) url = url.replace(`{${name}}`, encode(value));
          if (query.length > 0) url += '?' + query.map(([k, v]) => `${k}=${encode(v)}`).join('&');
          // No worker runs here: a synchronous start would wait out its timeout.
          if (body && typeof body === 'object' && !Array.isArray(body)) {
            for (const k of Object.keys(body)) if (/synchron/i.test(k)) (body as Record<string, unknown>)[k] = false;
          }
          const res = await ctx.app.inject({
            method: op.method as 'GET',
            url,
            headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
          });
          const where = `${op.method} ${url} ${JSON.stringify(body)?.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (res.statusCode >= 500 || INTERNAL_TEXT.test(res.body)) failures.push(where);
          return true;
        }),
        { numRuns: perRoute, seed: Number(process.env.FUZZ_SEED ?? 8), endOnFailure: true },
      );
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
