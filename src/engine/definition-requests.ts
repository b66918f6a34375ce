// The requests an Agent sends: `request` (start pages; `follow.request` for detail pages) with its
// method, headers, body and initial cookies, `login` (a login form filled and submitted before the
// crawl) and `userAgent`. Their schemas, and the checks a schema cannot make: headers the engine owns
// (framing and hop-by-hop), placeholders naming declared parameters, selectors that parse. Each problem
// names where it is (`request.headers.Host`); a definition with any of them cannot be saved (400).
import { Type, type Static } from '@sinclair/typebox';
import { load } from 'cheerio';
import { placeholdersOf, substitutePlaceholders } from './template.js';

const Placeholders = 'May hold {{parameter}} placeholders (encrypted parameters too: masked in logs).';

export const RequestCookieSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    value: Type.String({ maxLength: 4096, description: Placeholders }),
    domain: Type.Optional(
      Type.String({ minLength: 1, maxLength: 253, description: "Default: the start URL's host (host-only)." }),
    ),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: "Default: '/'." })),
  },
  { title: 'AgentRequestCookie', additionalProperties: false },
);

const StringMap = (description: string) =>
  Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 8192 }), { description });

export const RequestBodySchema = Type.Union(
  [
    Type.String({ maxLength: 1_000_000, description: `Sent as is (set its Content-Type in headers). ${Placeholders}` }),
    Type.Object(
      { form: StringMap(`Sent as application/x-www-form-urlencoded. ${Placeholders}`) },
      { additionalProperties: false },
    ),
    Type.Object(
      { json: Type.Any({ description: `Sent as application/json; string values: ${Placeholders}` }) },
      { additionalProperties: false },
    ),
  ],
  { title: 'AgentRequestBody', description: 'POST only: the body, as text, a form or JSON.' },
);

export const AgentRequestSchema = Type.Object(
  {
    method: Type.Optional(Type.Union([Type.Literal('GET'), Type.Literal('POST')], { description: 'Default GET.' })),
    headers: Type.Optional(
      StringMap(
        `Sent with every page of the kind (list pages or detail pages); Host, Content-Length, Transfer-Encoding, ` +
          `Connection and other hop-by-hop headers are refused. ${Placeholders}`,
      ),
    ),
    body: Type.Optional(RequestBodySchema),
    cookies: Type.Optional(
      Type.Array(RequestCookieSchema, {
        maxItems: 100,
        description: "Put into the Run's cookie jar before its first request.",
      }),
    ),
  },
  {
    title: 'AgentRequest',
    additionalProperties: false,
    description:
      'How pages are requested: start pages (top level) or detail pages (follow.request). Method and body apply ' +
      "to the start page of each input; headers to every page of the kind. Cookies go to the Run's cookie jar.",
    example: {
      method: 'POST',
      headers: { 'X-Api-Key': '{{apiKey}}' },
      body: { form: { q: '{{query}}', sort: 'new' } },
      cookies: [{ name: 'consent', value: 'yes' }],
    },
  },
);

export const AgentLoginSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      description: `The login page (its form is filled and submitted). ${Placeholders}`,
    }),
    fields: StringMap(`Form field name -> value; the form's other inputs (CSRF tokens) are kept. ${Placeholders}`),
    submit: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'CSS selector of the submit button (its form is used).',
      }),
    ),
    method: Type.Optional(
      Type.Union([Type.Literal('GET'), Type.Literal('POST')], {
        description: "Overrides the form's method (default: the form's, else POST).",
      }),
    ),
    successSelector: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'The page after logging in must contain a match.' }),
    ),
    failureText: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'The page after logging in must not contain it.' }),
    ),
  },
  {
    title: 'AgentLogin',
    additionalProperties: false,
    description:
      "Logs in once before the crawl; the session's cookies go to the Run's cookie jar. Without successSelector " +
      'and failureText, logging in succeeded when the page after it no longer has the login form.',
    example: {
      url: 'https://example.com/login',
      fields: { username: '{{user}}', password: '{{password}}' },
      submit: 'form#login button[type=submit]',
      successSelector: 'a.logout',
      failureText: 'Invalid password',
    },
  },
);

export const UserAgentSchema = Type.String({
  minLength: 1,
  maxLength: 512,
  description: "The User-Agent of every request of the Run (HTTP and browser); default: the product's own.",
  example: 'Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)',
});

export type AgentRequest = Static<typeof AgentRequestSchema>;
export type AgentLogin = Static<typeof AgentLoginSchema>;
export type RequestCookie = Static<typeof RequestCookieSchema>;

/** Headers the engine sets itself (framing, hop-by-hop, the connection's own): never taken from a definition. */
export const REFUSED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'http2-settings',
]);

// RFC 9110 token: what a header or cookie name may be made of.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than tab (line breaks included): never in a header or a cookie. */
const hasControl = (text: string) => [...text].some((c) => (c < ' ' && c !== '\t') || c === '\x7f');

/** The parts of a definition these checks read (an AgentDefinition is one). */
interface RequestPlan {
  parameters?: Array<{ name: string; defaultValue?: string }>;
  request?: AgentRequest;
  follow?: { request?: AgentRequest };
  login?: AgentLogin;
  userAgent?: string;
}

function placeholderProblems(text: string, where: string, declared: Set<string>): string[] {
  return placeholdersOf(text)
    .filter((name) => !declared.has(name))
    .map((name) => `${where}: placeholder '{{${name}}}' names no declared parameter`);
}

/** Every string inside a JSON body, with where it is. */
function jsonStrings(value: unknown, where: string): Array<[string, string]> {
  if (typeof value === 'string') return [[value, where]];
  if (Array.isArray(value)) return value.flatMap((v, i) => jsonStrings(v, `${where}[${i}]`));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => jsonStrings(v, `${where}.${k}`));
  return [];
}

function requestProblemsAt(request: AgentRequest, where: string, declared: Set<string>): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const at = `${where}.headers.${name}`;
    if (!TOKEN.test(name)) problems.push(`${at}: '${name}' is not a valid header name`);
    else if (REFUSED_HEADERS.has(name.toLowerCase()))
      problems.push(`${at}: the ${name} header is set by the engine (framing or hop-by-hop) and cannot be given`);
    if (hasControl(value)) problems.push(`${at}: a header value cannot hold line breaks or control characters`);
    problems.push(...placeholderProblems(value, at, declared));
  }
  if (request.body !== undefined && request.method !== 'POST')
    problems.push(`${where}.body: a body is sent only with method 'POST'`);
  const body = request.body;
  if (typeof body === 'string') problems.push(...placeholderProblems(body, `${where}.body`, declared));
  else if (body && 'form' in body)
    for (const [name, value] of Object.entries(body.form))
      problems.push(...placeholderProblems(value, `${where}.body.form.${name}`, declared));
  else if (body && 'json' in body)
    for (const [text, at] of jsonStrings(body.json, `${where}.body.json`))
      problems.push(...placeholderProblems(text, at, declared));
  (request.cookies ?? []).forEach((cookie, i) => {
    const at = `${where}.cookies[${i}]`;
    if (!TOKEN.test(cookie.name)) problems.push(`${at}.name: '${cookie.name}' is not a valid cookie name`);
    if (/[;\s",\\]/.test(cookie.value.replace(/\{\{[^{}]*\}\}/g, '')) || hasControl(cookie.value))
      problems.push(`${at}.value: a cookie value cannot hold spaces, quotes, commas, semicolons or backslashes`);
    if (cookie.path !== undefined && !cookie.path.startsWith('/')) problems.push(`${at}.path: must start with '/'`);
    if (cookie.domain !== undefined && !/^\.?[A-Za-z0-9.-]+$/.test(cookie.domain))
      problems.push(`${at}.domain: '${cookie.domain}' is not a host name`);
    problems.push(...placeholderProblems(cookie.value, `${at}.value`, declared));
  });
  return problems;
}

function selectorProblem(selector: string, where: string): string[] {
  try {
    load('').root().find(selector);
    return [];
  } catch (error) {
    return [`${where}: invalid CSS selector '${selector}': ${(error as Error).message}`];
  }
}

function loginProblems(login: AgentLogin, defaults: Record<string, string>, declared: Set<string>): string[] {
  const problems = placeholderProblems(login.url, 'login.url', declared);
  const { text, missing } = substitutePlaceholders(login.url, defaults);
  if (missing.length === 0 && !isHttp(text)) problems.push(`login.url: '${text}' is not an http(s) URL`);
  const names = Object.keys(login.fields);
  if (names.length === 0) problems.push('login.fields: name at least one form field to fill');
  for (const [name, value] of Object.entries(login.fields))
    problems.push(...placeholderProblems(value, `login.fields.${name}`, declared));
  if (login.submit !== undefined) problems.push(...selectorProblem(login.submit, 'login.submit'));
  if (login.successSelector !== undefined)
    problems.push(...selectorProblem(login.successSelector, 'login.successSelector'));
  return problems;
}

function isHttp(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The problems of a definition's request, follow.request, login and userAgent (its shape already checked). */
export function requestProblems(def: RequestPlan): string[] {
  const declared = new Set((def.parameters ?? []).map((p) => p.name));
  const defaults: Record<string, string> = {};
  for (const p of def.parameters ?? []) if (p.defaultValue !== undefined) defaults[p.name] = p.defaultValue;
  const problems: string[] = [];
  if (def.request) problems.push(...requestProblemsAt(def.request, 'request', declared));
  if (def.follow?.request) {
    problems.push(...requestProblemsAt(def.follow.request, 'follow.request', declared));
    if (def.follow.request.cookies)
      problems.push("follow.request.cookies: cookies go to the Run's one jar; give them in request.cookies");
  }
  if (def.login) problems.push(...loginProblems(def.login, defaults, declared));
  if (def.userAgent !== undefined && hasControl(def.userAgent))
    problems.push('userAgent: cannot hold line breaks or control characters');
  return problems;
}
