// One typed map of queue names to job payloads, and the producer side of each queue (used by the API's
// services and by the worker alike; it imports nothing of ours above lib/). Payloads carry ids, never secrets.
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

export interface QueuePayloads {
  maintenance: {
    task:
      | 'purge-expired-tokens'
      | 'reconcile-runs'
      | 'settle-runs'
      | 'expire-credits'
      | 'sweep-orphan-files'
      | 'purge-builder-sessions'
      | 'purge-webhook-deliveries';
  };
  runs: { runId: number };
  schedules: { task: 'tick' };
  /** One piece of Agent Builder work: the session's first draft (step 1) or a refinement (step > 1). */
  builder: { sessionId: string; step: number };
  /** Webhooks: the outbox relay's tick, an event's fan-out, one delivery attempt. */
  webhooks:
    { kind: 'relay' } | { kind: 'event'; eventId: number } | { kind: 'attempt'; deliveryId: number; attempt: number };
}
export type QueueName = keyof QueuePayloads;

/** Where a Run's job is in Redis (`missing` includes jobs Redis lost); the reconciler acts on it. */
export type RunJobState = 'pending' | 'active' | 'finished' | 'missing';

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

const defaultJobOptions: JobsOptions = {
  removeOnComplete: { count: 1000, age: 24 * 3600 },
  removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
};

export type TypedQueue<N extends QueueName> = Queue<QueuePayloads[N], unknown, string>;

export function createQueue<N extends QueueName>(
  name: N,
  connection: ConnectionOptions,
  prefix: string,
): TypedQueue<N> {
  return new Queue<QueuePayloads[N], unknown, string>(name, { connection, prefix, defaultJobOptions });
}

/** Deterministic job id of a Run's execution attempt (no `:`, not all digits). */
export const runJobId = (runId: number, attempt: number) => `run-${runId}-a${attempt}`;

/**
 * Server groups: a Run with a server group goes to its own queue, `runs-g<id>`, which only workers
 * that declared the group (WORKER_SERVER_GROUPS) consume; other Runs go to `runs`.
 */
export const runQueueName = (serverGroupId: number | null | undefined) =>
  serverGroupId ? `runs-g${serverGroupId}` : 'runs';

export interface ServerGroupRouting {
  /** The queue of a server group (opened on first use, closed by its owner). */
  groupQueue(serverGroupId: number): TypedQueue<'runs'>;
  /** The server group of a Run, for callers that know only its id (retries, reconcile, stop). */
  serverGroupOf(runId: number): Promise<number | null>;
}

/** Opens the queues of server groups on first use; `close` closes every one opened. */
export function createGroupQueues(connection: ConnectionOptions, prefix: string) {
  const opened = new Map<number, TypedQueue<'runs'>>();
  return {
    get(serverGroupId: number): TypedQueue<'runs'> {
      let q = opened.get(serverGroupId);
      if (!q) {
        q = new Queue<QueuePayloads['runs'], unknown, string>(runQueueName(serverGroupId), {
          connection,
          prefix,
          defaultJobOptions,
        });
        opened.set(serverGroupId, q);
      }
      return q;
    },
    async close() {
      await Promise.all([...opened.values()].map((q) => q.close()));
    },
  };
}

/**
 * A failed pick-up (the database unreachable when the job starts) is retried by BullMQ under the same
 * job id with a growing delay (1, 2, 4, 8 s); a planned shutdown hands a Run back the same way. Past
 * that the reconciler re-enqueues it (src/services/runs/reconciler.ts).
 */
export const RUN_JOB_ATTEMPTS = 5;
const RUN_JOB_BACKOFF = { type: 'exponential', delay: 1000 } as const;
const runJobOptions = (runId: number, attempt: number, delayMs = 0) => ({
  jobId: runJobId(runId, attempt),
  delay: delayMs,
  attempts: RUN_JOB_ATTEMPTS,
  backoff: RUN_JOB_BACKOFF,
});

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
 * The RunScheduler the runs services use: one job per execution attempt, in the queue of the Run's
 * server group. `timeoutMs` bounds every call (the API's requests never wait longer on Redis).
 */
export function createRunScheduler(
  queue: TypedQueue<'runs'>,
  opts: { timeoutMs?: number; groups?: ServerGroupRouting } = {},
) {
  const { groups } = opts;
  const bounded = <T>(p: Promise<T>) => (opts.timeoutMs ? withTimeout(p, opts.timeoutMs, 'Redis') : p);
  async function queueOf(runId: number, serverGroupId: number | null | undefined) {
    const group = serverGroupId !== undefined ? serverGroupId : groups ? await groups.serverGroupOf(runId) : null;
    return group && groups ? groups.groupQueue(group) : queue;
  }
  return {
    /** `serverGroupId` when the caller knows it; otherwise it is looked up. */
    async enqueueRun(runId: number, attempt: number, delayMs = 0, serverGroupId?: number | null): Promise<void> {
      const q = await queueOf(runId, serverGroupId);
      await bounded(q.add('run', { runId }, runJobOptions(runId, attempt, delayMs)));
    },
    /** A Run taken over from a lost worker, under a job id of its own: the lost worker's job may still be active. */
    async enqueueTakeover(runId: number, attempt: number, takeover: number): Promise<void> {
      const q = await queueOf(runId, undefined);
      await bounded(
        q.add(
          'run',
          { runId },
          { ...runJobOptions(runId, attempt), jobId: `${runJobId(runId, attempt)}-t${takeover}` },
        ),
      );
    },
    /** First attempts of many new Runs, one round trip per queue. */
    async enqueueNewRuns(runs: Array<{ id: number; serverGroupId: number | null }>): Promise<void> {
      const byQueue = new Map<TypedQueue<'runs'>, Array<{ id: number }>>();
      for (const r of runs) {
        const q = await queueOf(r.id, r.serverGroupId);
        const list = byQueue.get(q) ?? [];
        list.push(r);
        byQueue.set(q, list);
      }
      for (const [q, rs] of byQueue) {
        await bounded(q.addBulk(rs.map((r) => ({ name: 'run', data: { runId: r.id }, opts: runJobOptions(r.id, 0) }))));
      }
    },
    /** Best effort: a job left behind finds its Run ended and does nothing. */
    async removeRun(runId: number, attempt: number): Promise<void> {
      try {
        const q = await queueOf(runId, undefined);
        const job = await bounded(q.getJob(runJobId(runId, attempt)));
        await job?.remove();
      } catch {
        // Active (being picked) or Redis unreachable: the pick-up sees the Run ended.
      }
    },
    async jobState(runId: number, attempt: number): Promise<RunJobState> {
      const q = await queueOf(runId, undefined);
      const state = await bounded(q.getJobState(runJobId(runId, attempt)));
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
      const q = await queueOf(runId, undefined);
      const job = await bounded(q.getJob(runJobId(runId, attempt)));
      if (job && ((await job.isCompleted()) || (await job.isFailed()))) await job.remove();
      await this.enqueueRun(runId, attempt, delayMs);
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

/** Job ids of webhook work: an outbox event (its id) and one attempt of a delivery. */
export const webhookEventJobId = (eventId: number) => `whevt-${eventId}`;
export const webhookAttemptJobId = (deliveryId: number, attempt: number) => `whdel-${deliveryId}-a${attempt}`;

/** The DeliveryQueue of services/webhooks: idempotent job ids, so a repeated enqueue adds nothing. */
export function createWebhookQueue(queue: TypedQueue<'webhooks'>) {
  return {
    async enqueueEvents(eventIds: number[]): Promise<void> {
      await queue.addBulk(
        eventIds.map((eventId) => ({
          name: 'event',
          data: { kind: 'event' as const, eventId },
          opts: { jobId: webhookEventJobId(eventId) },
        })),
      );
    },
    async enqueueAttempts(items: Array<{ id: number; attempt: number; delayMs?: number }>): Promise<void> {
      await queue.addBulk(
        items.map((d) => ({
          name: 'attempt',
          data: { kind: 'attempt' as const, deliveryId: d.id, attempt: d.attempt },
          opts: { jobId: webhookAttemptJobId(d.id, d.attempt), delay: d.delayMs ?? 0 },
        })),
      );
    },
  };
}
