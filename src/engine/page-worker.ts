// Runs each page's parse and extraction on a worker thread under a CPU budget. A page that exceeds
// it (a parser holding the event loop on deep nesting, millions of elements, a selector that explodes)
// has its thread terminated, which stops even a synchronous loop; the page fails and the next page
// gets a fresh thread. The crawl loop's thread stays free meanwhile, so stops and timeouts act on time.
import { cpuUsage } from 'node:process';
import { Worker } from 'node:worker_threads';
import { UnreadablePage } from './json-page.js';
import { boundedXPath } from './xpath.js';
import {
  runPageTask,
  type DetailPageResult,
  type ListPageResult,
  type PageTask,
  type PageValue,
} from './page-extract.js';

export const DEFAULT_PAGE_CPU_SECONDS = 5;
/** However busy the machine, a page never holds the thread longer than this many budgets of wall time. */
const MAX_WALL_BUDGETS = 4;

/**
 * Pages up to this size are processed on the caller's thread when the definition's selectors are
 * bounded (no `:has`): the HTML parser's worst case there (nesting as deep as the bytes allow) stays
 * far below the smallest budget (see the parse cost table of `bench -- engine`), and a thread hop would
 * cost small pages about as much CPU as their parse.
 */
export const INLINE_PAGE_MAX_BYTES = 16 * 1024;

/** `unreadable`: the page's content cannot be read (UnreadablePage); it fails alone. Other errors are the engine's. */
export type PageReply =
  { ok: true; value: ListPageResult | DetailPageResult } | { ok: false; message: string; unreadable?: boolean };

/** Not done: the page went over its budget, the thread died under it, or the caller gave up on it. */
export type PageOutcome<T> =
  { ok: true; value: T } | { ok: false; reason: 'over-budget' | 'crashed' | 'aborted'; message?: string };

interface Job {
  task: PageTask;
  budgetMs: number;
  settle: (outcome: PageOutcome<unknown>) => void;
  fail: (error: Error) => void;
}

// Under tsx (development, tests) the thread is TypeScript and registers the same loader itself.
const isTs = import.meta.url.endsWith('.ts');
const THREAD_URL = new URL(isTs ? './page-worker-thread.ts' : './page-worker-thread.js', import.meta.url);

/**
 * The thread's own heap limit: a page whose DOM outgrows it fails alone ("could not be processed")
 * instead of taking the run process down with it.
 */
const THREAD_HEAP_MB = 256;

function startThread(): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } };
  if (!isTs) return new Worker(THREAD_URL, options);
  const boot = `import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(THREAD_URL.href)});`;
  return new Worker(boot, { ...options, eval: true });
}

const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** One thread, pages in arrival order; shared by every extraction of the process. */
class PageWorker {
  #thread: Worker | null = null;
  #ready = false;
  #queue: Job[] = [];
  #current: { job: Job; timer: NodeJS.Timeout } | null = null;

  run<T extends PageTask>(task: T, budgetMs: number, signal: AbortSignal): Promise<PageOutcome<PageValue<T>>> {
    if (signal.aborted) return Promise.resolve({ ok: false, reason: 'aborted' });
    return new Promise((resolve, reject) => {
      let settled = false;
      // A page given up on is not worth finishing: its thread is ended, and the next page gets a new one.
      const onAbort = () => {
        const running = this.#current?.job === job && this.#thread;
        if (running) this.#end(running);
        job.settle({ ok: false, reason: 'aborted' });
        if (running) this.#next();
      };
      const job: Job = {
        task,
        budgetMs,
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          const queued = this.#queue.indexOf(job);
          if (queued >= 0) this.#queue.splice(queued, 1);
          resolve(outcome as PageOutcome<PageValue<T>>);
        },
        fail: (error) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(job);
      this.#next();
    });
  }

  warm(): void {
    this.#thread ??= this.#start();
  }

  #next(): void {
    if (this.#current || this.#queue.length === 0) return;
    const thread = this.#thread ?? this.#start();
    if (!this.#ready) return;
    const job = this.#queue.shift()!;
    const startedAt = performance.now();
    const cpuAtStart = cpuUsage();
    // The process's CPU time while the page is processed bounds the page's own: on a busy machine
    // the wall clock runs ahead of it, so the budget is checked against CPU and re-armed until spent.
    const check = (waitMs: number): NodeJS.Timeout =>
      setTimeout(() => {
        if (this.#current?.job !== job) return;
        const spentMs = cpuMsSince(cpuAtStart);
        const wallMs = performance.now() - startedAt;
        if (spentMs < job.budgetMs && wallMs < job.budgetMs * MAX_WALL_BUDGETS) {
          this.#current.timer = check(Math.max(job.budgetMs - spentMs, 10));
          return;
        }
        this.#end(thread);
        job.settle({ ok: false, reason: 'over-budget' });
        this.#next();
      }, waitMs);
    this.#current = { job, timer: check(job.budgetMs) };
    thread.ref();
    thread.postMessage(job.task);
  }

  #start(): Worker {
    const thread = startThread();
    this.#thread = thread;
    this.#ready = false;
    thread.unref();
    thread.on('message', (message: PageReply | 'ready') => {
      if (message === 'ready') {
        this.#ready = true;
        this.#next();
        return;
      }
      const current = this.#current;
      if (!current) return;
      clearTimeout(current.timer);
      this.#current = null;
      thread.unref();
      if (message.ok) current.job.settle({ ok: true, value: message.value });
      else if (message.unreadable) current.job.settle({ ok: false, reason: 'crashed', message: message.message });
      else current.job.fail(new Error(message.message));
      this.#next();
    });
    // Out of memory, or a failure to start: the page fails, and a page waiting gets a new thread.
    const lost = (error: Error) => {
      if (this.#thread !== thread) return;
      const current = this.#current;
      this.#end(thread);
      if (current) current.job.settle({ ok: false, reason: 'crashed', message: error.message });
      else for (const job of this.#queue.splice(0)) job.fail(error);
      this.#next();
    };
    thread.on('error', lost);
    thread.on('exit', (code) => lost(new Error(`the page thread exited with code ${code}`)));
    return thread;
  }

  #end(thread: Worker): void {
    if (this.#current) clearTimeout(this.#current.timer);
    this.#current = null;
    if (this.#thread === thread) {
      this.#thread = null;
      this.#ready = false;
    }
    thread.removeAllListeners('message');
    void thread.terminate();
  }
}

let shared: PageWorker | null = null;

/** Starts the page thread ahead of the first page (a run process does, so its first Run does not wait). */
export function warmPageWorker(): void {
  shared ??= new PageWorker();
  shared.warm();
}

/**
 * True when no selector can make a small page's extraction explode (`:has` searches every descendant) and
 * every XPath is provably about linear (`boundedXPath`). Regular expressions run in linear time (RE2JS).
 */
export function boundedSelectors(selectors: string[], xpaths: string[] = []): boolean {
  return !selectors.some((s) => s.includes(':has')) && xpaths.every(boundedXPath);
}

/** Processes one page within `budgetMs` of CPU time: on the shared page thread, or here when it is provably cheap. */
export function processPage<T extends PageTask>(
  task: T,
  budgetMs: number,
  signal: AbortSignal,
  selectorsBounded: boolean,
): Promise<PageOutcome<PageValue<T>>> {
  if (selectorsBounded && task.page.body.length <= INLINE_PAGE_MAX_BYTES) {
    if (signal.aborted) return Promise.resolve({ ok: false, reason: 'aborted' });
    try {
      return Promise.resolve({ ok: true, value: runPageTask(task) });
    } catch (error) {
      if (!(error instanceof UnreadablePage)) throw error;
      return Promise.resolve({ ok: false, reason: 'crashed', message: error.message });
    }
  }
  shared ??= new PageWorker();
  return shared.run(task, budgetMs, signal);
}
