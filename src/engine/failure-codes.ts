// Why an extraction failed (or produced nothing usable), as a machine-readable code with the figures
// that explain it. The code is set where the failure happens; the message a person reads is built from
// the code and its parameters by `engineFailureMessage` alone, so a message can be reworded without
// changing what diagnoses, metrics or clients decide from.
import { STATUS_CODES } from 'node:http';
import type { FetchFailure } from './page.js';
import { describeStorageFailure, StorageFailureKind } from '../storage/index.js';

export const EngineFailureCode = {
  /** The definition does not pass validation. */
  DefinitionInvalid: 'DEFINITION_INVALID',
  /** The definition renders in a browser and this worker has no Chromium. */
  BrowserUnavailable: 'BROWSER_UNAVAILABLE',
  /** The Run reached its timeoutSeconds. */
  RunTimeout: 'RUN_TIMEOUT',
  /** A bug in the engine (details in the run log only). */
  InternalError: 'INTERNAL_ERROR',
  /** An input's start URL, after parameter substitution, is not an http(s) URL. */
  StartUrlInvalid: 'START_URL_INVALID',
  /** The start page answered an HTTP error other than blocking (404, 500, ...). */
  StartPageHttpError: 'START_PAGE_HTTP_ERROR',
  /** The start page answered 401, 403 or 429: the site refused or rate-limited the Run. */
  Blocked: 'BLOCKED',
  /** The start page could not be reached: DNS, refused or reset connection, TLS, timeout, redirects. */
  StartPageUnreachable: 'START_PAGE_UNREACHABLE',
  /** The start page took longer than the page CPU budget to parse and extract. */
  PageCpuBudget: 'PAGE_CPU_BUDGET',
  /** The start page's body was larger than the engine accepts. */
  ResponseTooLarge: 'RESPONSE_TOO_LARGE',
  /** The SSRF guard refused a hop: it resolves to a private, loopback or reserved address. */
  TargetRefused: 'TARGET_REFUSED',
  /** The Run's proxy failed: it asked for authentication (407) or could not be reached. */
  ProxyFailed: 'PROXY_FAILED',
  /** The definition's login did not succeed: a login hop failed, or the page after it failed the check. */
  LoginFailed: 'LOGIN_FAILED',
  /** The start page is disallowed by the site's robots.txt (politeness.respectRobotsTxt). */
  RobotsDisallowed: 'ROBOTS_DISALLOWED',
  /** Completed with a warning: the list selector matched nothing on every list page fetched. */
  ListMatchedNothing: 'LIST_MATCHED_NOTHING',
  /** Completed with a warning: every record missed a required field and was dropped. */
  RequiredFieldsMissing: 'REQUIRED_FIELDS_MISSING',
  /** Completed with a warning: every field was empty in every record. */
  FieldsEmpty: 'FIELDS_EMPTY',
  /** The Run's files could not be stored: the volume or quota is full. */
  StorageFull: 'STORAGE_FULL',
  /** The Run's files could not be stored: permission, read-only volume, or the object store refused or is unreachable. */
  StorageUnavailable: 'STORAGE_UNAVAILABLE',
  /** The Run extracted but missed one of the definition's successCriteria (Completed, or Failure with failBelow). */
  SuccessCriteriaMissed: 'SUCCESS_CRITERIA_MISSED',
} as const;
export type EngineFailureCode = (typeof EngineFailureCode)[keyof typeof EngineFailureCode];

/** Figures a message is built from; strings are already masked of the Run's secrets. */
export type FailureParams = Record<string, string | number>;

export interface EngineFailure {
  code: EngineFailureCode;
  params: FailureParams;
}

const C = EngineFailureCode;

/** The failure with `mask` applied to its text parameters (they may quote a URL carrying a secret). */
export function maskFailure(f: EngineFailure, mask: (text: string) => string): EngineFailure {
  const params = Object.fromEntries(Object.entries(f.params).map(([k, v]) => [k, typeof v === 'string' ? mask(v) : v]));
  return { code: f.code, params };
}

/** The failure of an input whose start page could not be fetched or processed. */
export function startPageFailure(failure: FetchFailure, viaProxy: boolean): EngineFailure {
  const { url, attempts } = failure;
  const reason = failure.message;
  switch (failure.kind) {
    case 'http': {
      const status = failure.status ?? 0;
      if (status === 407) return { code: C.ProxyFailed, params: { url, reason } };
      const code = status === 401 || status === 403 || status === 429 ? C.Blocked : C.StartPageHttpError;
      return { code, params: { url, status, attempts } };
    }
    case 'target-refused':
      return { code: C.TargetRefused, params: { url, reason } };
    case 'robots-disallowed':
      return { code: C.RobotsDisallowed, params: { url, reason } };
    case 'banned':
      return { code: C.Blocked, params: { url, reason, attempts } };
    case 'over-budget':
      return { code: C.PageCpuBudget, params: { url, reason } };
    case 'too-large':
      return { code: C.ResponseTooLarge, params: { url, reason } };
    case 'dns':
    case 'refused':
    case 'reset':
    case 'timeout':
    case 'tls':
    case 'network':
      // Through a proxy, a connection that fails is the proxy's (it answers for the target otherwise).
      if (viaProxy) return { code: C.ProxyFailed, params: { url, reason } };
      return { code: C.StartPageUnreachable, params: { url, kind: failure.kind, reason } };
    default:
      return { code: C.StartPageUnreachable, params: { url, kind: failure.kind, reason } };
  }
}

/** The code of a storage failure: a full volume or quota, or a store that cannot be used. */
export function failureOfStorage(kind: StorageFailureKind, kept?: { host: string; dir: string }): EngineFailure {
  const full = kind === StorageFailureKind.DiskFull || kind === StorageFailureKind.QuotaExceeded;
  const params: FailureParams = kept ? { kind, keptOn: kept.host, keptIn: kept.dir } : { kind };
  return { code: full ? C.StorageFull : C.StorageUnavailable, params };
}

/** A storage failure's words, and where the files wait on the worker when they were kept there. */
function storageMessage(p: FailureParams): string {
  const text = describeStorageFailure(p.kind as StorageFailureKind).message;
  if (p.keptIn === undefined) return text;
  return `${text} The files that could not be stored are kept on worker ${p.keptOn} in ${p.keptIn}/ until an operator copies them to the store.`;
}

/** What an HTTP answer means to the user, and what to do about it. */
const SITE_ANSWERS: Record<number, { meaning: string; advice?: string }> = {
  401: { meaning: 'the site requires authentication' },
  403: { meaning: 'the site blocked the request', advice: 'try a proxy pool or lower concurrency' },
  407: { meaning: 'the site requires authentication' },
  429: { meaning: 'the site is rate limiting requests', advice: 'lower concurrency or try a proxy pool' },
};

export function statusText(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown Status'}`;
}

function answered(p: FailureParams): string {
  const status = Number(p.status);
  const attempts = Number(p.attempts) > 1 ? ` (after ${p.attempts} attempts)` : '';
  const text = `Start page ${p.url} answered ${statusText(status)}${attempts}`;
  const known = SITE_ANSWERS[status];
  if (known) return `${text}: ${known.meaning}${known.advice ? `; ${known.advice}` : ''}`;
  if (status >= 500) return `${text}: the site is failing; try again later`;
  return text;
}

/** Every proxy the start page was tried through was banned (proxy.banStatuses, proxy.banText). */
function bannedMessage(p: FailureParams): string {
  const attempts = Number(p.attempts) > 1 ? ` (after ${p.attempts} attempts)` : '';
  return `Start page ${p.url} was blocked: ${p.reason}${attempts}; add proxies to the pool or lower concurrency`;
}

const MESSAGES: Record<EngineFailureCode, (p: FailureParams) => string> = {
  DEFINITION_INVALID: (p) => `definition is invalid: ${p.problems}`,
  BROWSER_UNAVAILABLE: (p) => `render '${p.render}' needs Chromium, which this worker does not have: ${p.hint}`,
  RUN_TIMEOUT: (p) => `run timed out after ${p.seconds} s`,
  INTERNAL_ERROR: () => 'extraction failed because of an internal error (see the run log)',
  START_URL_INVALID: (p) => `Input ${p.input}: start URL '${p.url}' is not an http(s) URL`,
  START_PAGE_HTTP_ERROR: answered,
  BLOCKED: (p) => (p.reason !== undefined ? bannedMessage(p) : answered(p)),
  START_PAGE_UNREACHABLE: (p) => `Start page ${p.url} failed: ${p.reason}`,
  PAGE_CPU_BUDGET: (p) => `Start page ${p.url} failed: ${p.reason}`,
  RESPONSE_TOO_LARGE: (p) => `Start page ${p.url} failed: ${p.reason}`,
  TARGET_REFUSED: (p) => String(p.reason),
  ROBOTS_DISALLOWED: (p) =>
    `Start page ${p.url} was not fetched: ${p.reason}; set politeness.respectRobotsTxt to false only if you may crawl it anyway`,
  PROXY_FAILED: (p) => `Start page ${p.url} failed through the Run's proxy: ${p.reason}; check the proxy pool`,
  LOGIN_FAILED: (p) => `login failed: ${p.reason}`,
  LIST_MATCHED_NOTHING: (p) => {
    const pages = Number(p.pages) === 1 ? 'the 1 page' : `any of the ${p.pages} pages`;
    return `The list ${p.list} matched nothing on ${pages} fetched: no records were extracted (has the page layout changed?).`;
  },
  REQUIRED_FIELDS_MISSING: (p) =>
    `Required field ${p.fields} was empty in every record: all ${p.records} records were dropped.`,
  FIELDS_EMPTY: (p) =>
    `Every field was empty in all ${p.records} records: the field selectors matched nothing inside the list items.`,
  STORAGE_FULL: storageMessage,
  STORAGE_UNAVAILABLE: storageMessage,
  SUCCESS_CRITERIA_MISSED: criteriaMessage,
};

/** "success criteria not met: minRecords 50, got 12", with the figures behind a ratio. */
function criteriaMessage(p: FailureParams): string {
  let detail = '';
  if (p.criterion === 'maxErrorRatio') detail = ` (${p.failed} of ${p.attempted} pages failed)`;
  else if (String(p.criterion).startsWith('minFillRate.')) detail = ` (${p.filled} of ${p.records} records)`;
  const more = Number(p.missed) > 1 ? `; ${Number(p.missed) - 1} more missed` : '';
  return `success criteria not met: ${p.criterion} ${p.expected}, got ${p.actual}${detail}${more}`;
}

/** The one place an engine failure becomes words. `failedInputs` > 1 says every input's start failed. */
export function engineFailureMessage(f: EngineFailure): string {
  const text = MESSAGES[f.code](f.params);
  const inputs = Number(f.params.failedInputs ?? 1);
  return inputs > 1 ? `${text} (the start pages of all ${inputs} inputs failed)` : text;
}
