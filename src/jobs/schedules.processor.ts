// The `schedules` queue processor: each tick (a BullMQ job scheduler, in every worker process)
// fires the due Schedules through the firing service.
import type { Job } from 'bullmq';
import type { RunQueueScheduler } from '../queues/queues.js';
import { createQueue, type QueuePayloads } from '../queues/queues.js';
import type { CreditsRepository } from '../services/billing/credits.repository.js';
import type { RunsRepository } from '../services/runs/runs.repository.js';
import { createScheduleFiring, type ScheduleFiring } from '../services/schedules/firing.service.js';
import { createSchedulesRepository } from '../services/schedules/schedules.repository.js';
import type { WebhooksRepository } from '../services/webhooks/webhooks.repository.js';
import type { JobDomain, WorkerContext } from './job-domain.js';

/** One tick at a time: the firing service claims due Schedules itself. */
export const SCHEDULES_WORKER_OPTIONS = { concurrency: 1 };

export function createSchedulesProcessor(deps: { firing: Pick<ScheduleFiring, 'tick'> }) {
  return async function processSchedules(job: Job<QueuePayloads['schedules']>) {
    switch (job.data.task) {
      case 'tick':
        return deps.firing.tick();
    }
  };
}

export function wireScheduleJobs(
  ctx: WorkerContext,
  deps: { runs: RunsRepository; credits: CreditsRepository; scheduler: RunQueueScheduler; outbox: WebhooksRepository },
): JobDomain {
  const queue = createQueue('schedules', ctx.connection, ctx.prefix);
  const firing = createScheduleFiring({
    repo: createSchedulesRepository(ctx.db),
    ...deps,
    clock: ctx.clock,
    log: ctx.log,
    batchSize: ctx.config.schedules.batchSize,
  });
  return {
    queues: [queue],
    workers: [
      { queue: 'schedules', processor: createSchedulesProcessor({ firing }), options: SCHEDULES_WORKER_OPTIONS },
    ],
    async declareSchedulers() {
      await queue.upsertJobScheduler(
        'schedule-tick',
        { every: ctx.config.schedules.tickSeconds * 1000 },
        {
          name: 'schedule-tick',
          data: { task: 'tick' },
          opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
        },
      );
    },
  };
}
