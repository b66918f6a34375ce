// One typed map of queue names to job payloads. Payloads carry ids, never secrets.
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';

export interface QueuePayloads {
  maintenance: { task: 'purge-expired-tokens' | 'reconcile-runs' | 'settle-runs' | 'expire-credits' };
  runs: { runId: number };
  schedules: { task: 'tick' };
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

/**
 * Server groups: a Run with a server group goes to its own queue, `runs-g<id>`, which only workers
 * that declared the group (WORKER_SERVER_GROUPS) consume; other Runs go to `runs`.
 */
export const runQueueName = (serverGroupId: number | null | undefined) => (serverGroupId ? `runs-g${serverGroupId}` : 'runs');

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
        q = new Queue<QueuePayloads['runs'], unknown, string>(runQueueName(serverGroupId), { connection, prefix, defaultJobOptions }) as TypedQueue<'runs'>;
        opened.set(serverGroupId, q);
      }
      return q;
    },
    async close() {
      await Promise.all([...opened.values()].map((q) => q.close()));
    },
  };
}

/** The RunScheduler the runs services use: one job per execution attempt. */
export function createRunScheduler(queue: TypedQueue<'runs'>, groups?: ServerGroupRouting) {
  async function queueOf(runId: number, serverGroupId: number | null | undefined) {
    const group = serverGroupId !== undefined ? serverGroupId : groups ? await groups.serverGroupOf(runId) : null;
    return group && groups ? groups.groupQueue(group) : queue;
  }
  return {
    /** `serverGroupId` when the caller knows it; otherwise it is looked up. */
    async enqueueRun(runId: number, attempt: number, delayMs = 0, serverGroupId?: number | null): Promise<void> {
      const q = await queueOf(runId, serverGroupId);
      await q.add('run', { runId }, { jobId: runJobId(runId, attempt), delay: delayMs, attempts: 1 });
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
        await q.addBulk(rs.map((r) => ({ name: 'run', data: { runId: r.id }, opts: { jobId: runJobId(r.id, 0), attempts: 1 } })));
      }
    },
    async removeRun(runId: number, attempt: number): Promise<void> {
      const job = await (await queueOf(runId, undefined)).getJob(runJobId(runId, attempt));
      await job?.remove().catch(() => {});
    },
  };
}
export type RunQueueScheduler = ReturnType<typeof createRunScheduler>;
