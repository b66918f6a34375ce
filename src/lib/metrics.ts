// Prometheus metrics of this process (prom-client): one registry per process, served by its own
// listener (lib/metrics-server.ts), never on the API's port. Every label has a closed set of values
// (route templates, status names, queue names, error kinds): no id, URL, user or organization, so the
// number of series does not grow with traffic. What each metric means: docs/operations.md, "Metrics".
// Recording is a counter/histogram call on a cached child: cheap enough for every request.
import { Counter, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

const PREFIX = 'ces_';

// ---- HTTP (API process) ----------------------------------------------------------------------

/** The route label of a request that matched no route (every unknown path shares it). */
export const UNMATCHED_ROUTE = 'unmatched';
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const httpRequests = new Counter({
  name: `${PREFIX}http_requests_total`,
  help: 'HTTP requests answered, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  registers: [registry],
});
const httpDuration = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: 'Time from receiving an HTTP request to sending its response, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

type HttpChildren = { count: ReturnType<typeof httpRequests.labels>; duration: ReturnType<typeof httpDuration.labels> };
// prom-client hashes the label values on every labelled call; the children are looked up once per
// (method, route, status) instead. The key set is bounded by the label values themselves.
const httpChildren = new Map<string, HttpChildren>();

/** One answered request; `route` is the matched route's template, undefined when none matched. */
export function recordHttpRequest(
  method: string,
  route: string | undefined,
  statusCode: number,
  seconds: number,
): void {
  const m = KNOWN_METHODS.has(method) ? method : 'other';
  const r = route ?? UNMATCHED_ROUTE;
  const key = `${m} ${statusCode} ${r}`;
  let c = httpChildren.get(key);
  if (!c) {
    const labels = { method: m, route: r, status_code: String(statusCode) };
    c = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
    httpChildren.set(key, c);
  }
  c.count.inc();
  c.duration.observe(seconds);
}

export type RateLimitScope = 'request' | 'login';
export type RateLimitDecision = 'allowed' | 'limited';
const rateLimitDecisions = new Counter({
  name: `${PREFIX}rate_limit_decisions_total`,
  help: 'Rate-limit decisions: request budgets (per API key, user or IP) and login budgets, allowed or limited (429).',
  labelNames: ['scope', 'decision'] as const,
  registers: [registry],
});
const rateLimitChildren = new Map<string, ReturnType<typeof rateLimitDecisions.labels>>();
for (const scope of ['request', 'login'] as const) {
  for (const decision of ['allowed', 'limited'] as const) {
    rateLimitChildren.set(`${scope} ${decision}`, rateLimitDecisions.labels({ scope, decision }));
  }
}

export function recordRateLimitDecision(scope: RateLimitScope, decision: RateLimitDecision): void {
  rateLimitChildren.get(`${scope} ${decision}`)?.inc();
}

// ---- Runs (worker process; ends in whichever process ended the Run) -----------------------------

const runsStarted = new Counter({
  name: `${PREFIX}runs_started_total`,
  help: 'Runs a worker began to execute (a retry of a Run counts again).',
  registers: [registry],
});
const runsEnded = new Counter({
  name: `${PREFIX}runs_ended_total`,
  help: 'Runs that reached a terminal status, by status (counted by the process that ended them).',
  labelNames: ['status'] as const,
  registers: [registry],
});
const runDuration = new Histogram({
  name: `${PREFIX}run_duration_seconds`,
  help: 'Duration of ended Runs from start of execution to end, by terminal status (Runs never started: not observed).',
  labelNames: ['status'] as const,
  buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600],
  registers: [registry],
});
/** The terminal statuses' series exist from the start, at 0 (so rates and alerts see them). */
export function declareRunEndStatuses(statuses: readonly string[]): void {
  for (const status of statuses) runsEnded.labels({ status }).inc(0);
}

export function recordRunStarted(): void {
  runsStarted.inc();
}

/** A Run reached terminal `status` (its API name); `seconds` is null when it never started. */
export function recordRunEnded(status: string, seconds: number | null): void {
  runsEnded.labels({ status }).inc();
  if (seconds !== null) runDuration.labels({ status }).observe(Math.max(0, seconds));
}

const pagesFetched = new Counter({
  name: `${PREFIX}pages_fetched_total`,
  help: 'Pages Runs fetched successfully (list and detail pages), counted when each Run ends.',
  registers: [registry],
});
const fetchErrors = new Counter({
  name: `${PREFIX}fetch_errors_total`,
  help: 'Page requests of Runs that failed after retries, by kind (network kinds, or http_4xx / http_5xx answers).',
  labelNames: ['kind'] as const,
  registers: [registry],
});
const exportedBytes = new Counter({
  name: `${PREFIX}exported_bytes_total`,
  help: 'Bytes of export files (CSV, JSON, ...) written by Runs; logs are not counted.',
  registers: [registry],
});
/** Fetch error kinds: the engine's network kinds plus HTTP error classes. */
export const FETCH_ERROR_KINDS = [
  'dns',
  'refused',
  'reset',
  'tls',
  'timeout',
  'other',
  'http_4xx',
  'http_5xx',
] as const;
export type FetchErrorKind = (typeof FETCH_ERROR_KINDS)[number];
for (const kind of FETCH_ERROR_KINDS) fetchErrors.labels({ kind }).inc(0);

/** What one ended Run did on the web and wrote, from its result. */
export interface RunWork {
  pages: number;
  exportedBytes: number;
  fetchErrors: Partial<Record<FetchErrorKind, number>>;
}

export function recordRunWork(work: RunWork): void {
  if (work.pages > 0) pagesFetched.inc(work.pages);
  if (work.exportedBytes > 0) exportedBytes.inc(work.exportedBytes);
  for (const kind of FETCH_ERROR_KINDS) {
    const n = work.fetchErrors[kind] ?? 0;
    if (n > 0) fetchErrors.labels({ kind }).inc(n);
  }
}

// ---- Schedules, billing ------------------------------------------------------------------------

const scheduleFireLag = new Histogram({
  name: `${PREFIX}schedule_fire_lag_seconds`,
  help: 'Delay between a Schedule fire time and the creation of its Run.',
  buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 21600],
  registers: [registry],
});

export function recordScheduleFireLag(seconds: number): void {
  scheduleFireLag.observe(Math.max(0, seconds));
}

const creditsDebited = new Counter({
  name: `${PREFIX}credits_debited_total`,
  help: 'Credits debited for Run usage (the cost of settled Runs, including any part no grant covered).',
  registers: [registry],
});

/** After the settlement transaction committed (a rolled-back debit is not counted). */
export function recordCreditsDebited(credits: number): void {
  if (credits > 0) creditsDebited.inc(credits);
}

// ---- Webhooks (recorded by the webhook deliverer) ----------------------------------------------

/** How one delivery attempt ended: a 2xx, another answer, no answer in time, or no connection. */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['success', 'http_error', 'timeout', 'network_error'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];
/** Why a subscription was disabled automatically: 410 Gone, or failing for too long. */
export const WEBHOOK_DISABLE_REASONS = ['gone', 'failing'] as const;
export type WebhookDisableReason = (typeof WEBHOOK_DISABLE_REASONS)[number];

const webhookAttempts = new Counter({
  name: `${PREFIX}webhook_deliveries_total`,
  help: 'Webhook delivery attempts, by outcome.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
const webhookLatency = new Histogram({
  name: `${PREFIX}webhook_delivery_duration_seconds`,
  help: 'Duration of webhook delivery attempts (request sent to answer or timeout), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [registry],
});
const webhookDisabled = new Counter({
  name: `${PREFIX}webhook_subscriptions_disabled_total`,
  help: 'Webhook subscriptions disabled automatically, by reason (gone: answered 410; failing: every delivery failed for days).',
  labelNames: ['reason'] as const,
  registers: [registry],
});
for (const outcome of WEBHOOK_ATTEMPT_OUTCOMES) webhookAttempts.labels({ outcome }).inc(0);
for (const reason of WEBHOOK_DISABLE_REASONS) webhookDisabled.labels({ reason }).inc(0);

export function recordWebhookAttempt(outcome: WebhookAttemptOutcome, latencySeconds: number): void {
  webhookAttempts.labels({ outcome }).inc();
  webhookLatency.labels({ outcome }).observe(Math.max(0, latencySeconds));
}

export function recordWebhookDisabled(reason: WebhookDisableReason): void {
  webhookDisabled.labels({ reason }).inc();
}

// ---- Storage (recorded by the storage adapters' callers) -----------------------------------------

const storageErrors = new Counter({
  name: `${PREFIX}storage_errors_total`,
  help: 'Failed storage operations, by driver (local, s3) and kind of failure.',
  labelNames: ['driver', 'kind'] as const,
  registers: [registry],
});

/** `driver` and `kind` must come from closed sets (e.g. 'local' | 's3', 'unavailable' | 'denied' | ...). */
export function recordStorageError(driver: string, kind: string): void {
  storageErrors.labels({ driver, kind }).inc();
}
