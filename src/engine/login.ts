// Logging in before the crawl (the definition's `login`). Over HTTP: the login page is fetched, its form
// found (the one holding every named field, or the submit button's), its inputs kept (hidden CSRF tokens
// included), the named fields filled, and the form sent to its action with its method and encoding
// (URL-encoded, or multipart/form-data when its enctype says so); the cookies of every hop go to the
// Run's jar. In the browser the page's form is filled and submitted in Chromium.
// Every hop is a page request of the Run's page source, so the SSRF guard (resolvePublic) checks it and
// withRetries retries it. Then the page after logging in is checked; a failed login fails the Run.
import { load, type CheerioAPI } from 'cheerio';
import type { AgentLogin } from './definition-requests.js';
import type { LogFunction } from './extraction-types.js';
import { EngineFailureCode, statusText, type EngineFailure } from './failure-codes.js';
import type { FetchedPage, FetchFailure, GetOptions, PageSource } from './page.js';
import { decodeText } from './parse.js';
import { formBody, multipartForm } from './request-build.js';
import { fillPlaceholders, substitutePlaceholders } from './template.js';

export interface LoginOptions {
  login: AgentLogin;
  /** The values of the Run's first input (parameter defaults, its row, the Run's values). */
  values: Record<string, string>;
  source: PageSource;
  /** The page source renders in the browser: the form is filled and submitted there. */
  browser: boolean;
  /** The definition's request headers (placeholders filled), sent with every login hop. */
  headers: Record<string, string>;
  canStart: () => boolean;
  log: LogFunction;
  /** Told of each login request (the Run's evidence counts them). */
  onRequest?: () => void;
}

const loginFailed = (reason: string): EngineFailure => ({ code: EngineFailureCode.LoginFailed, params: { reason } });

/** Why a login hop failed, in words: "the login page https://x/login answered 500 Internal Server Error". */
function hopFailure(what: string, failure: FetchFailure): string {
  if (failure.kind === 'target-refused') return `${what}: ${failure.message}`;
  if (failure.kind === 'http' && failure.status !== undefined)
    return `${what} ${failure.url} answered ${statusText(failure.status)}`;
  return `${what} ${failure.url} failed: ${failure.message}`;
}

const DEFAULT_BUTTON = 'button:not([type]), button[type=submit], input[type=submit], input[type=image]';
const SKIPPED_INPUTS = new Set(['submit', 'button', 'image', 'reset', 'file']);

/** The form to fill: the submit selector's form, else the first form holding every named field. */
function findForm($: CheerioAPI, login: AgentLogin) {
  if (login.submit !== undefined) {
    const button = $(login.submit).first();
    const form = button.is('form') ? button : button.closest('form');
    return { form: form.length > 0 ? form : null, button: button.is('form') ? null : button };
  }
  const names = Object.keys(login.fields);
  const form = $('form')
    .filter((_, f) => names.every((n) => $(f).find(`[name="${CSS.escape(n)}"]`).length > 0))
    .first();
  if (form.length === 0) return { form: null, button: null };
  // Submitted as a browser submits on Enter: through the form's default (first) submit button.
  const button = form.find(DEFAULT_BUTTON).first();
  return { form, button: button.length > 0 ? button : null };
}

/** Whether the page still has a form asking for the login's fields. */
function hasLoginForm($: CheerioAPI, login: AgentLogin): boolean {
  return findForm($, { ...login, submit: undefined }).form !== null;
}

// cheerio offers no CSS.escape; names of form fields only need quotes and backslashes escaped.
const CSS = { escape: (text: string) => text.replace(/["\\]/g, '\\$&') };

/** The form's fields as a browser would send them, with the login's values filled in. */
function formFields(
  $: CheerioAPI,
  form: ReturnType<typeof findForm>,
  filled: Record<string, string>,
): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  form.form!.find('input, select, textarea').each((_, el) => {
    const node = $(el);
    const name = node.attr('name');
    if (!name || node.is('[disabled]') || name in filled) return;
    const type = (node.attr('type') ?? 'text').toLowerCase();
    if (node.is('input') && SKIPPED_INPUTS.has(type)) return;
    if ((type === 'checkbox' || type === 'radio') && !node.is('[checked]')) return;
    if (node.is('select')) {
      const option = node.find('option[selected]').first().length
        ? node.find('option[selected]').first()
        : node.find('option').first();
      fields.push([name, option.attr('value') ?? option.text()]);
    } else if (node.is('textarea')) fields.push([name, node.text()]);
    else fields.push([name, node.attr('value') ?? (type === 'checkbox' || type === 'radio' ? 'on' : '')]);
  });
  fields.push(...Object.entries(filled));
  const button = form.button;
  if (button?.attr('name')) fields.push([button.attr('name')!, button.attr('value') ?? '']);
  return fields;
}

/** Whether the page after logging in says the login worked; null when it did, else why not. */
function checkResult(page: FetchedPage, login: AgentLogin): string | null {
  const $ = load(decodeText(page.body, page.contentType));
  if (login.successSelector !== undefined && $(login.successSelector).length === 0)
    return `successSelector '${login.successSelector}' matched nothing on the page after logging in (${page.finalUrl})`;
  if (login.failureText !== undefined && $.root().text().includes(login.failureText))
    return `the page after logging in (${page.finalUrl}) contains the failureText '${login.failureText}'`;
  if (login.successSelector === undefined && login.failureText === undefined && hasLoginForm($, login))
    return `the page after logging in (${page.finalUrl}) still shows the login form`;
  return null;
}

/** Logs in; null when it worked, else the Run's failure (LOGIN_FAILED, its reason unmasked: the caller masks). */
export async function logIn(o: LoginOptions): Promise<EngineFailure | null> {
  const { login, values, headers, canStart, log } = o;
  const source = {
    get: (url: string, opts: GetOptions) => {
      o.onRequest?.();
      return o.source.get(url, opts);
    },
  };
  const url = substitutePlaceholders(login.url, values).text;
  const filled = Object.fromEntries(
    Object.entries(login.fields).map(([k, v]) => [k, fillPlaceholders(v, values).text]),
  );
  log('Info', `Login: ${o.browser ? 'RENDER' : 'GET'} ${url}`);
  if (o.browser) {
    const request = { method: 'GET' as const, headers, fill: { fields: filled, submit: login.submit } };
    const result = await source.get(url, { canStart, request });
    // The form was submitted in the page: the site got a second request.
    if (result.ok) o.onRequest?.();
    if (!result.ok)
      return result.failure.kind === 'aborted' ? null : loginFailed(hopFailure('the login page', result.failure));
    return finish(result.page, login, log);
  }
  const page = await source.get(url, { canStart, request: { method: 'GET', headers } });
  if (!page.ok) return page.failure.kind === 'aborted' ? null : loginFailed(hopFailure('the login page', page.failure));
  const $ = load(decodeText(page.page.body, page.page.contentType));
  const form = findForm($, login);
  if (form.form === null) {
    const which =
      login.submit !== undefined
        ? `the form of submit '${login.submit}'`
        : `a form with the fields ${Object.keys(login.fields).join(', ')}`;
    return loginFailed(`the login page ${page.page.finalUrl} has no ${which}`);
  }
  const action = new URL(form.form.attr('action') || page.page.finalUrl, page.page.finalUrl);
  action.hash = '';
  const method = login.method ?? ((form.form.attr('method') ?? 'post').toUpperCase() === 'GET' ? 'GET' : 'POST');
  const fields = formFields($, form, filled);
  let submitted;
  if (method === 'GET') {
    action.search = formBody(fields);
    submitted = await source.get(action.href, { canStart, request: { method, headers } });
  } else {
    // Sent as the form's enctype says: multipart/form-data, else URL-encoded (text/plain is sent URL-encoded too).
    const multipart = (form.form.attr('enctype') ?? '').trim().toLowerCase() === 'multipart/form-data';
    const encoded = multipart
      ? multipartForm(fields)
      : { contentType: 'application/x-www-form-urlencoded', body: formBody(fields) };
    const request = { method, headers: { ...headers, 'Content-Type': encoded.contentType }, body: encoded.body };
    submitted = await source.get(action.href, { canStart, request });
  }
  log('Info', `Login: ${method} ${action.origin}${action.pathname} (the form of ${page.page.finalUrl})`);
  if (!submitted.ok)
    return submitted.failure.kind === 'aborted'
      ? null
      : loginFailed(hopFailure("the login form's submission to", submitted.failure));
  return finish(submitted.page, login, log);
}

function finish(page: FetchedPage, login: AgentLogin, log: LogFunction): EngineFailure | null {
  const problem = checkResult(page, login);
  if (problem !== null) return loginFailed(problem);
  log('Info', `Login: logged in (${page.finalUrl} -> ${page.status})`);
  return null;
}
