// A Run: read it, wait for it to end, stop, kill or delete it, list and download its files.
import { apiErrorOf } from './errors.js';
import { sleep, type CallOptions, type Transport } from './http.js';
import { iteratePages, type PageQuery } from './pagination.js';
import {
  isTerminalStatus,
  type Page,
  type QueryOf,
  type Run,
  type RunDiagnostics,
  type RunFile,
  type RunLogTail,
} from './types.js';

/** The longest a single status request may be held by the server (its `waitForFinish` maximum). */
const MAX_HOLD_SECONDS = 60;
const POLL_MIN_MS = 1_000;
const POLL_MAX_MS = 10_000;

export interface WaitOptions extends CallOptions {
  /** Give up after this many seconds and answer the Run as it is then (default: wait until it ends). */
  waitSecs?: number;
}

export class RunClient {
  constructor(
    private readonly http: Transport,
    readonly agentId: number,
    readonly runId: number,
  ) {}

  private get path() {
    return `/api/v1/agent/${this.agentId}/run/${this.runId}`;
  }

  /** The Run: status (RunStatus), times, statistics and, while active, progress. */
  get(opts: CallOptions & { waitForFinish?: number } = {}): Promise<Run> {
    const hold = opts.waitForFinish;
    return this.http.json<Run>({
      ...opts,
      method: 'GET',
      path: `${this.path}/status`,
      query: { waitForFinish: hold },
      holdSeconds: hold,
    });
  }

  /** The same as `get()`: the Run with its status. */
  status(opts: CallOptions & { waitForFinish?: number } = {}): Promise<Run> {
    return this.get(opts);
  }

  /**
   * Waits until the Run is terminal (Failure, Stopped, Completed, Success, Skipped) or `waitSecs` have
   * passed, and answers the Run as it is then. The server holds each request up to 60 s
   * (`waitForFinish`); between answers that come back early the wait grows from 1 s to 10 s, and never
   * polls faster than the rate limit the API announces (X-RateLimit-Limit per X-RateLimit-Window-Seconds).
   */
  async waitForFinish(opts: WaitOptions = {}): Promise<Run> {
    const deadline = opts.waitSecs === undefined ? Infinity : Date.now() + opts.waitSecs * 1000;
    for (let polls = 0; ; polls++) {
      const left = deadline - Date.now();
      const hold = Math.max(0, Math.min(MAX_HOLD_SECONDS, Math.floor(left / 1000)));
      const asked = Date.now();
      const run = await this.get({ ...opts, waitForFinish: hold });
      if (isTerminalStatus(run.status) || Date.now() >= deadline) return run;
      const held = Date.now() - asked;
      if (held >= hold * 1000 - 500 && hold > 0) continue;
      await sleep(Math.min(this.pollDelayMs(polls), Math.max(0, deadline - Date.now())), opts.signal);
    }
  }

  /** Backoff between polls: 1 s doubling to 10 s, and at least twice the rate limit's spacing. */
  private pollDelayMs(polls: number): number {
    const backoff = Math.min(POLL_MAX_MS, POLL_MIN_MS * 2 ** polls);
    const rl = this.http.rateLimit;
    const spacing = rl ? (2 * rl.windowSeconds * 1000) / rl.limit : 0;
    return Math.max(backoff, spacing);
  }

  /** Stops the Run gracefully (the data so far is exported). */
  stop(opts: CallOptions = {}): Promise<Run> {
    return this.http.json<Run>({ ...opts, method: 'POST', path: `${this.path}/stop` });
  }

  /** First call: stop gracefully; a second call while it is stopping ends it at once. */
  kill(opts: CallOptions = {}): Promise<Run> {
    return this.http.json<Run>({ ...opts, method: 'POST', path: `${this.path}/kill` });
  }

  /** Deletes the Run and its files (or, with `removeMethod`, only its files). */
  async delete(opts: CallOptions & QueryOf<'deleteRun'> = {}): Promise<void> {
    const { removeMethod, ...call } = opts;
    await this.http.send({ ...call, method: 'DELETE', path: this.path, query: { removeMethod } });
  }

  /** The files the Run wrote: exports (CSV, JSON, NDJSON), its log, HTML snapshots. */
  files(opts: CallOptions = {}): Promise<RunFile[]> {
    return this.http.json<RunFile[]>({ ...opts, method: 'GET', path: `${this.path}/files` });
  }

  /** The last lines of the Run's log (at most 1000), also while it runs. */
  log(opts: CallOptions & { lines?: number } = {}): Promise<RunLogTail> {
    return this.http.json<RunLogTail>({
      ...opts,
      method: 'GET',
      path: `${this.path}/log`,
      query: { lines: opts.lines },
    });
  }

  /** What went wrong (or right) with the Run: possible causes, evidence, statistics. */
  diagnostics(opts: CallOptions = {}): Promise<RunDiagnostics> {
    return this.http.json<RunDiagnostics>({
      ...opts,
      method: 'GET',
      path: `/api/v1/analytics/agents/${this.agentId}/runs/${this.runId}/diagnostics`,
    });
  }

  /**
   * The bytes of one of the Run's files as a web ReadableStream. With object storage the API answers
   * 302 to a pre-signed URL: it is followed without the Authorization header (the store must not see
   * the API's credentials, and refuses a request that carries two kinds of authentication).
   */
  async downloadFile(fileId: number, opts: CallOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const res = await this.http.send({
      ...opts,
      method: 'GET',
      path: `${this.path}/file/${fileId}/download`,
      manualRedirect: true,
    });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return bodyOf(res);
    await res.body?.cancel();
    const target = new URL(location, res.url || this.http.baseUrl).toString();
    const stored = await fetch(target, { redirect: 'follow', signal: opts.signal });
    if (!stored.ok) throw apiErrorOf(stored.status, stored.headers, await stored.text().catch(() => ''));
    return bodyOf(stored);
  }
}

function bodyOf(res: Response): ReadableStream<Uint8Array> {
  return res.body ?? new ReadableStream({ start: (c) => c.close() });
}

/** The Runs of one Agent, newest first. */
export class AgentRunsClient {
  constructor(
    private readonly http: Transport,
    readonly agentId: number,
  ) {}

  /** One page of the Agent's Runs. */
  async list(query: PageQuery = {}, opts: CallOptions = {}): Promise<Page<Run>> {
    const pageIndex = query.pageIndex ?? 1;
    const recordsPerPage = query.recordsPerPage ?? 100;
    const page = await this.http.json<{ runs: Run[]; totalRecordCount: number }>({
      ...opts,
      method: 'GET',
      path: `/api/v1/agent/${this.agentId}/runs`,
      query: { pageIndex, recordsPerPage },
    });
    return { items: page.runs, totalRecordCount: page.totalRecordCount, pageIndex, recordsPerPage };
  }

  /** Every Run of the Agent, newest first, fetched page by page. */
  iterate(query: PageQuery = {}, opts: CallOptions = {}): AsyncGenerator<Run, void, undefined> {
    return iteratePages((pageIndex, recordsPerPage, o) => this.list({ pageIndex, recordsPerPage }, o), query, opts);
  }
}
