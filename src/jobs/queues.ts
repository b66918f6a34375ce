// One typed map of queue names to job payloads. Payloads carry ids, never secrets.
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { RunJobState } from '../services/runs/reconciler.js';

export interface QueuePayloads {
  maintenance: { task: 'purge-expired-tokens' | 'reconcile-runs' | 'settle-runs' | 'sweep-orphan-files' };
  runs: { runId: number };
}
export type QueueName = keyof QueuePayloads;

/**
 * `producer`: the API's connection, which must never hang a request on Redis: no offline queue (a
 * command while disconnected fails at once), short connect and command timeouts, one retry.
 */
export function redisConnection(redisUrl: string, opts: { producer?: { timeoutMs: number } } = {}): ConnectionOptions {
  const u = new URL(redisUrl);
  const producer = opts.producer
    ? {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: opts.producer.timeoutMs,
        commandTimeout: opts.producer.timeoutMs,
        // Reconnect within 2 s of Redis coming back, however long it was away.
        retryStrategy: (times: number) => Math.min(times * 200, 2000),
      }
    : // BullMQ workers need blocking commands to wait indefinitely.
      { maxRetriesPerRequest: null };
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    ...producer,
  };
}

export const defaultJobOptions: JobsOptions = {
  removeOnComplete: { count: 1000, age: 24 * 3600 },
  removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
};

export type TypedQueue<N extends QueueName> = Queue<QueuePayloads[N], unknown, string>;

export function createQueue<N extends QueueName>(name: N, connection: ConnectionOptions, prefix: string): TypedQueue<N> {
  return new Queue<QueuePayloads[N], unknown, string>(name, { connection, prefix, defaultJobOptions }) as TypedQueue<N>;
}

/** Deterministic job id of a Run's execution attempt (no `:`, not all digits). */
export const runJobId = (runId: number, attempt: number) => `run-${runId}-a${attempt}`;

/**
 * A failed pick-up (the database unreachable when the job starts) is retried by BullMQ under the same
 * job id with a growing delay (1, 2, 4, 8 s); a planned shutdown hands a Run back the same way. Past
 * that the reconciler re-enqueues it (src/services/runs/reconciler.ts).
 */
export const RUN_JOB_ATTEMPTS = 5;
const RUN_JOB_BACKOFF = { type: 'exponential', delay: 1000 } as const;


/** Rejects after `ms` (the promise itself is left to settle; callers make a late success harmless). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The RunScheduler the runs services use: one job per execution attempt. `timeoutMs` bounds every
 * call (the API's requests never wait longer on Redis).
 */
export function createRunScheduler(queue: TypedQueue<'runs'>, opts: { timeoutMs?: number } = {}) {
  const bounded = <T>(p: Promise<T>) => (opts.timeoutMs ? withTimeout(p, opts.timeoutMs, 'Redis') : p);
  return {
    async enqueueRun(runId: number, attempt: number, delayMs = 0): Promise<void> {
      await bounded(queue.add('run', { runId }, { jobId: runJobId(runId, attempt), delay: delayMs, attempts: RUN_JOB_ATTEMPTS, backoff: RUN_JOB_BACKOFF }));
    },
    /** Best effort: a job left behind finds its Run ended and does nothing. */
    async removeRun(runId: number, attempt: number): Promise<void> {
      try {
        const job = await bounded(queue.getJob(runJobId(runId, attempt)));
        await job?.remove();
      } catch {
        // Active (being picked) or Redis unreachable: the pick-up sees the Run ended.
      }
    },
    async jobState(runId: number, attempt: number): Promise<RunJobState> {
      const state = await bounded(queue.getJobState(runJobId(runId, attempt)));
      if (state === 'active') return 'active';
      if (state === 'completed' || state === 'failed') return 'finished';
      if (state === 'unknown') return 'missing';
      return 'pending';
    },
    /**
     * Enqueues a Run whose job is finished or gone. BullMQ ignores an add under the id of a job it
     * still keeps, so a finished job is removed first (its outcome was logged when it failed).
     */
    async requeueRun(runId: number, attempt: number, delayMs = 0): Promise<void> {
      const job = await bounded(queue.getJob(runJobId(runId, attempt)));
      if (job && (await job.isCompleted() || await job.isFailed())) await job.remove();
      await this.enqueueRun(runId, attempt, delayMs);
    },
  };
}
export type RunQueueScheduler = ReturnType<typeof createRunScheduler>;
