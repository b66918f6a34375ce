// The `builder` queue processor: runs one Agent Builder step, aborting its page requests and preview
// extraction as soon as the session is stopped (heard on the sessions channel, not polled).
import type { Job } from 'bullmq';
import type { BuilderWorkService } from '../services/builder/builder-work.service.js';
import type { EventsSubscriber } from '../services/builder/events-bus.js';
import { SessionStatus } from '../services/builder/session-state.js';
import type { QueuePayloads } from '../queues/queues.js';

export function createBuilderProcessor(deps: {
  work: Pick<BuilderWorkService, 'runStep'>;
  subscriber: Pick<EventsSubscriber, 'listen'>;
}) {
  const running = new Map<string, AbortController>();
  const listening = deps.subscriber.listen((signal) => {
    if (signal.status === SessionStatus.Cancelled) running.get(signal.sessionId)?.abort(new Error('session stopped'));
  });
  // Awaited by each job (which then fails and is logged); a worker closed while still subscribing
  // must not end in an unhandled rejection.
  listening.catch(() => {});

  return async function processBuilderStep(job: Job<QueuePayloads['builder']>): Promise<{ status: string }> {
    await listening;
    const { sessionId, step } = job.data;
    const controller = new AbortController();
    running.set(sessionId, controller);
    try {
      return { status: await deps.work.runStep(sessionId, step, controller.signal) };
    } finally {
      if (running.get(sessionId) === controller) running.delete(sessionId);
    }
  };
}
