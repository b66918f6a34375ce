// The `schedules` queue processor: each tick (a BullMQ job scheduler, in every worker process)
// fires the due Schedules through the firing service.
import type { Job } from 'bullmq';
import type { ScheduleFiring } from '../services/schedules/firing.service.js';
import type { QueuePayloads } from '../queues/queues.js';

export function createSchedulesProcessor(deps: { firing: Pick<ScheduleFiring, 'tick'> }) {
  return async function processSchedules(job: Job<QueuePayloads['schedules']>) {
    switch (job.data.task) {
      case 'tick':
        return deps.firing.tick();
    }
  };
}
