// Gauges read when Prometheus scrapes, from the objects that own the figures: the PostgreSQL
// connection pools and BullMQ queues this process holds. A scrape never waits long for Redis: the
// queue counts it cannot get within QUEUE_COUNT_TIMEOUT_MS are left out of that scrape.
import { Gauge } from 'prom-client';
import { registry } from './metrics.js';

/** What the pool gauges read (pg's Pool). */
export interface PoolFigures {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly ended: boolean;
}

// Weak: a pool the process dropped (Prisma's $disconnect leaves an external pool to idle out)
// leaves the gauges when it is collected or ended.
const pools = new Set<WeakRef<PoolFigures>>();
const live = () => {
  const out: PoolFigures[] = [];
  for (const ref of pools) {
    const p = ref.deref();
    if (!p || p.ended) pools.delete(ref);
    else out.push(p);
  }
  return out;
};

new Gauge({
  name: 'ces_db_pool_connections_in_use',
  help: 'PostgreSQL connections of this process checked out of its pools (running a query or transaction).',
  registers: [registry],
  collect() {
    this.set(live().reduce((n, p) => n + p.totalCount - p.idleCount, 0));
  },
});
new Gauge({
  name: 'ces_db_pool_waiting_clients',
  help: 'Queries and transactions of this process waiting for a free PostgreSQL connection.',
  registers: [registry],
  collect() {
    this.set(live().reduce((n, p) => n + p.waitingCount, 0));
  },
});

/** Counts the pool in the pool gauges until it ends. */
export function trackDbPool(pool: PoolFigures): void {
  pools.add(new WeakRef(pool));
}

/** What the queue gauge reads (BullMQ's Queue). */
export interface CountedQueue {
  readonly name: string;
  getJobCounts(...states: QueueJobState[]): Promise<Record<string, number>>;
}
export const QUEUE_JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
  'paused',
] as const;
export type QueueJobState = (typeof QUEUE_JOB_STATES)[number];
export const QUEUE_COUNT_TIMEOUT_MS = 1000;

const queues = new Map<string, CountedQueue>();

async function countsOf(q: CountedQueue): Promise<Record<string, number> | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), QUEUE_COUNT_TIMEOUT_MS)));
  try {
    return await Promise.race([q.getJobCounts(...QUEUE_JOB_STATES), late]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

new Gauge({
  name: 'ces_queue_jobs',
  help:
    'Jobs in each BullMQ queue by state, as BullMQ counts them ' +
    '(read at scrape time; left out when Redis does not answer within 1 s).',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  async collect() {
    const counted = await Promise.all([...queues.values()].map(async (q) => [q.name, await countsOf(q)] as const));
    this.reset();
    for (const [queue, counts] of counted) {
      if (!counts) continue;
      for (const state of QUEUE_JOB_STATES) this.set({ queue, state }, counts[state] ?? 0);
    }
  },
});

/** Reports the queues' job counts on every scrape, until `untrack` is called. */
export function trackQueues(list: CountedQueue[]): { untrack(): void } {
  for (const q of list) queues.set(q.name, q);
  return {
    untrack() {
      for (const q of list) if (queues.get(q.name) === q) queues.delete(q.name);
    },
  };
}
