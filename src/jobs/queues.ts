// One typed map of queue names to job payloads. Payloads carry ids, never secrets.
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

export interface QueuePayloads {
  maintenance: { task: 'purge-expired-tokens' | 'reconcile-runs' | 'purge-builder-sessions' };
  runs: { runId: number };
  /** One piece of Agent Builder work: the session's first draft (step 1) or a refinement (step > 1). */
  builder: { sessionId: string; step: number };
}
export type QueueName = keyof QueuePayloads;

export function redisConnection(redisUrl: string): ConnectionOptions {
  const u = new URL(redisUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    // BullMQ workers need blocking commands to wait indefinitely.
    maxRetriesPerRequest: null,
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

/** The RunScheduler the runs services use: one job per execution attempt. */
export function createRunScheduler(queue: TypedQueue<'runs'>) {
  return {
    async enqueueRun(runId: number, attempt: number, delayMs = 0): Promise<void> {
      await queue.add('run', { runId }, { jobId: runJobId(runId, attempt), delay: delayMs, attempts: 1 });
    },
    async removeRun(runId: number, attempt: number): Promise<void> {
      const job = await queue.getJob(runJobId(runId, attempt));
      await job?.remove().catch(() => {});
    },
  };
}
export type RunQueueScheduler = ReturnType<typeof createRunScheduler>;

/** Deterministic job id of one Agent Builder step (no `:`, not all digits). */
export const builderJobId = (sessionId: string, step: number) => `builder-${sessionId}-s${step}`;

/** The queue side of the Agent Builder: one job per step, removable while it waits. */
export function createBuilderScheduler(queue: TypedQueue<'builder'>) {
  return {
    async enqueueStep(sessionId: string, step: number): Promise<void> {
      await queue.add('build', { sessionId, step }, { jobId: builderJobId(sessionId, step), attempts: 1 });
    },
    async removeStep(sessionId: string, step: number): Promise<void> {
      const job = await queue.getJob(builderJobId(sessionId, step));
      // An active job cannot be removed; the worker aborts it when it hears of the stop.
      await job?.remove().catch(() => {});
    },
  };
}
