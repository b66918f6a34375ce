// What the worker runtime (runtime.ts) asks of each domain it runs: the queues it owns, the BullMQ
// workers it runs on them (queue, processor, options), the job schedulers it declares and what it
// closes. The runtime creates the workers, counts every queue in the metrics and closes it all in order.
import type { ConnectionOptions, Job, Queue, WorkerOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/prisma.js';
import type { Clock } from '../lib/clock.js';

/** What every domain of the worker is built from. */
export interface WorkerContext {
  config: Config;
  log: Logger;
  clock: Clock;
  db: Db;
  connection: ConnectionOptions;
  /** The Redis key prefix of every queue. */
  prefix: string;
}

/** One BullMQ worker: the queue it takes jobs from, how it processes them and its options. */
export interface QueueWorker {
  queue: string;
  /** Method syntax: each processor takes its own queue's typed Job. */
  processor(job: Job): Promise<unknown>;
  options: Omit<WorkerOptions, 'connection' | 'prefix'>;
}

/** Runs one closing step: a failure or a dependency that is down never strands the steps after it. */
export type CloseStep = (name: string, fn: () => Promise<unknown> | void) => Promise<void>;

export interface JobDomain {
  /** Every queue the domain owns: counted in the queue metrics, closed after the workers. */
  queues: Queue[];
  workers: QueueWorker[];
  /** Declares the domain's job schedulers (kept in Redis: again after a reconnection). */
  declareSchedulers?(): Promise<void>;
  /** Stops what feeds the domain's queues from outside BullMQ, before the workers close. */
  stopFeeding?(step: CloseStep): Promise<void>;
  /** Closes what the domain holds besides its queues, once its workers are closed. */
  close?(step: CloseStep): Promise<void>;
}
