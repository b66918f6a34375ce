// The one place requests are made: credentials, time-outs, abort signals, and retries with exponential
// backoff and full jitter that honour Retry-After. GET, PUT and DELETE are retried on 429, 5xx and
// network errors; POST (a start is not idempotent) only on 429 and on 503 with Retry-After, the two
// answers after which the API guarantees nothing was done.
import { apiErrorOf, ConnectionError, TimeoutError } from './errors.js';

/** How the client reaches the API. */
export interface ClientOptions {
  /** The service's base URL, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** An API key (`cx_...`), sent as `Authorization: ApiKey <key>`. */
  apiKey?: string;
  /** An access token from POST /oauth/token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** Time-out of each attempt in milliseconds (default 60 000; long-polls add their wait to it). */
  timeoutMs?: number;
  /** The User-Agent header. */
  userAgent?: string;
  /** The fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the call (and its retries and waits). */
  signal?: AbortSignal;
  /** Time-out of each attempt in milliseconds, instead of the client's. */
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | readonly (string | number)[] | undefined | null>;

export interface RequestSpec extends CallOptions {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  /** Redirects are followed by the caller (downloads). */
  manualRedirect?: boolean;
  /** Seconds the server may hold the request (long-poll), added to the time-out. */
  holdSeconds?: number;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;
export const SDK_VERSION = '0.1.0';

/** Full jitter: a random delay up to base * 2^attempt, capped. */
export function backoffMs(attempt: number, baseMs = BACKOFF_BASE_MS, maxMs = BACKOFF_MAX_MS): number {
  return Math.random() * Math.min(maxMs, baseMs * 2 ** attempt);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryable(method: RequestSpec['method'], status: number, headers: Headers): boolean {
  if (status === 429) return true;
  if (method === 'POST') return status === 503 && headers.get('retry-after') !== null;
  return status >= 500;
}

export class Transport {
  readonly baseUrl: string;
  readonly maxRetries: number;
  /** The last X-RateLimit-Limit and X-RateLimit-Window-Seconds seen: the budget waits keep within. */
  rateLimit: { limit: number; windowSeconds: number } | undefined;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(opts: ClientOptions) {
    if (!opts.baseUrl) throw new TypeError('baseUrl is required');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.maxRetries = opts.maxRetries ?? 4;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.headers = {
      accept: 'application/json',
      'user-agent': opts.userAgent ?? `cloud-extraction-client-node/${SDK_VERSION}`,
    };
    if (opts.apiKey) this.headers.authorization = `ApiKey ${opts.apiKey}`;
    else if (opts.token) this.headers.authorization = `Bearer ${opts.token}`;
  }

  url(path: string, query?: Query): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
      else url.searchParams.set(k, String(v));
    }
    return url.toString();
  }

  /** The answer of a successful request (2xx, or 3xx when redirects are manual); an ApiError otherwise. */
  async send(spec: RequestSpec): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.attempt(spec);
      } catch (err) {
        // A network error or a time-out: the request may have been done; only idempotent ones are repeated.
        if (spec.signal?.aborted || spec.method === 'POST' || attempt >= this.maxRetries) throw err;
        await sleep(backoffMs(attempt), spec.signal);
        continue;
      }
      this.noteRateLimit(res.headers);
      if (res.ok || (spec.manualRedirect && res.status >= 300 && res.status < 400)) return res;
      const body = await readBody(res);
      const error = apiErrorOf(res.status, res.headers, body);
      if (attempt >= this.maxRetries || !retryable(spec.method, res.status, res.headers)) throw error;
      const wait = error.retryAfter !== undefined ? error.retryAfter * 1000 : backoffMs(attempt);
      await sleep(wait, spec.signal);
    }
  }

  /** JSON of a successful request (undefined for 204). */
  async json<T>(spec: RequestSpec): Promise<T> {
    const res = await this.send(spec);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  private async attempt(spec: RequestSpec): Promise<Response> {
    const timeoutMs = (spec.timeoutMs ?? this.timeoutMs) + (spec.holdSeconds ?? 0) * 1000;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(spec.signal!.reason);
    if (spec.signal?.aborted) onAbort();
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = { ...this.headers };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await this.fetchFn(this.url(spec.path, spec.query), {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        redirect: spec.manualRedirect ? 'manual' : 'follow',
        signal: controller.signal,
      });
    } catch (err) {
      if (timedOut) throw new TimeoutError(`${spec.method} ${spec.path}: no answer within ${timeoutMs} ms`);
      if (spec.signal?.aborted) throw spec.signal.reason as Error;
      throw new ConnectionError(`${spec.method} ${spec.path}: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
    }
  }

  private noteRateLimit(headers: Headers) {
    const limit = Number(headers.get('x-ratelimit-limit'));
    const windowSeconds = Number(headers.get('x-ratelimit-window-seconds'));
    if (limit > 0 && windowSeconds > 0) this.rateLimit = { limit, windowSeconds };
  }
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => '');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
