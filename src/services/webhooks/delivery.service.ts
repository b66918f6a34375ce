// The worker side of webhooks: the outbox relay, an event's fan-out to the subscriptions that want it,
// and one delivery attempt with its outcome (success, retry on the schedule, failure, disabling).
import type { Clock } from '../../lib/clock.js';
import type { RunFileModel } from '../../schemas/runs.js';
import { DISABLE_AFTER_FAILING_DAYS } from '../../schemas/webhooks.js';
import { RunStatus } from '../runs/status-machine.js';
import { describeFailure, type AttemptOutcome, type AttemptSender } from './attempts.js';
import { runPayload, subscriptionMatches, TERMINAL_EVENT } from './events.js';
import { failedTooLong, nextAttemptAt } from './retry-schedule.js';
import { isSuccess, WebhookFailureCode, type AttemptResult } from './sender.js';
import type { WebhookRow, WebhooksRepository } from './webhooks.repository.js';

export interface DeliveryQueue {
  /** Enqueues one job per event (job id from the outbox id). */
  enqueueEvents(eventIds: number[]): Promise<void>;
  /** Enqueues attempt `attempt` of each delivery (job id from delivery and attempt). */
  enqueueAttempts(items: Array<{ id: number; attempt: number; delayMs?: number }>): Promise<void>;
}

export const RELAY_BATCH = 200;
/**
 * A due delivery is re-enqueued by the relay only once it is this overdue: its own job normally runs
 * first, and re-adding every pending delivery on each 500 ms pass costs Redis work during a burst.
 * Redeliveries are picked up this way too, so they go out within about this long.
 */
export const LOST_JOB_GRACE_MS = 10_000;

export function createWebhookDeliveryService(deps: {
  repo: WebhooksRepository;
  attempts: Pick<AttemptSender, 'send' | 'report'>;
  queue: DeliveryQueue;
  clock: Clock;
  random?: () => number;
}) {
  const { repo, attempts, queue, clock } = deps;

  /** The payload of an outbox event, built once from the Run's state (final for terminal events). */
  async function buildPayload(event: {
    type: string;
    runId: number | null;
    agentId: number | null;
    spaceId: number | null;
    data: unknown;
    created: Date;
  }) {
    if (event.runId === null)
      return {
        payload: {
          type: event.type,
          timestamp: event.created.toISOString(),
          data: (event.data ?? {}) as Record<string, unknown>,
        },
        agentId: event.agentId,
        spaceId: event.spaceId,
      };
    const run = await repo.findRunForEvent(event.runId);
    if (!run) return null;
    const terminal = TERMINAL_EVENT[run.status] !== undefined && event.type !== 'run.created';
    const files = terminal
      ? run.files.map((f) => ({
          id: f.id,
          name: f.name,
          fileType: f.fileType as RunFileModel['fileType'],
          fileSize: Number(f.fileSize),
          created: f.created,
        }))
      : null;
    const view =
      event.type === 'run.created'
        ? { ...run, status: run.status === RunStatus.Skipped ? run.status : RunStatus.Queuing }
        : run;
    return {
      payload: runPayload(event.type, event.created, view, files),
      agentId: run.agentId,
      spaceId: run.agent.spaceId,
    };
  }

  return {
    /** One relay pass; returns how many events it enqueued. Also re-enqueues due deliveries (retries, redeliveries). */
    async relay(): Promise<number> {
      const n = await repo.relay(RELAY_BATCH, (ids) => queue.enqueueEvents(ids));
      const due = await repo.dueDeliveries(new Date(clock.now().getTime() - LOST_JOB_GRACE_MS));
      if (due.length > 0) await queue.enqueueAttempts(due);
      return n;
    },

    /** An event's fan-out: its payload fixed, a delivery per matching subscription, first attempts enqueued. */
    async fanOut(eventId: number): Promise<void> {
      const event = await repo.findEvent(eventId);
      if (!event) return;
      const built = await buildPayload(event);
      // The Run was deleted before the event was relayed: nothing left to tell.
      if (!built) return;
      await repo.fixPayload(eventId, built.payload);
      const subs = (await repo.enabledSubscriptions(event.organizationId)).filter((s) =>
        subscriptionMatches(s, { type: event.type, agentId: built.agentId, spaceId: built.spaceId }),
      );
      const at = clock.now();
      await repo.createDeliveries(
        eventId,
        subs.map((s) => s.id),
        at,
      );
      const due = await repo.dueDeliveries(at, eventId);
      if (due.length > 0) await queue.enqueueAttempts(due);
    },

    /** Attempt `attempt` of a delivery; a job run again (stalled, duplicated) finds it done and does nothing. */
    async attempt(deliveryId: number, attempt: number): Promise<void> {
      const d = await repo.findDelivery(deliveryId);
      if (!d || d.status !== 'pending' || d.attemptCount >= attempt) return;
      const at = clock.now();
      if (!d.webhook.enabled) {
        await repo.recordAttempt(
          deliveryId,
          attempt,
          at,
          {
            statusCode: null,
            durationMs: 0,
            responseBody: '',
            error: 'subscription disabled',
            errorCode: WebhookFailureCode.SubscriptionDisabled,
            retryAfterMs: null,
          },
          {
            status: 'failed',
            nextAttemptAt: null,
            finalReason: 'The subscription is disabled.',
          },
        );
        return;
      }
      const result = await attempts.send(d.webhook, d.eventId, JSON.stringify(d.event.payload), at);
      attempts.report(await settleAttempt(d.webhook, deliveryId, attempt, at, result), result);
    },
  };

  async function settleAttempt(
    webhook: WebhookRow,
    deliveryId: number,
    attempt: number,
    at: Date,
    result: AttemptResult,
  ): Promise<AttemptOutcome> {
    if (isSuccess(result)) {
      await repo.recordAttempt(deliveryId, attempt, at, result, {
        status: 'succeeded',
        nextAttemptAt: null,
        finalReason: null,
      });
      await repo.markHealthy(webhook.id);
      return 'success';
    }
    if (result.errorCode === WebhookFailureCode.ReceiverGone) {
      await repo.recordAttempt(deliveryId, attempt, at, result, {
        status: 'failed',
        nextAttemptAt: null,
        finalReason: 'The receiver answered 410 Gone.',
      });
      await repo.disable(webhook.id, `Disabled at ${at.toISOString()}: the receiver answered 410 Gone.`);
      return 'disabled';
    }
    const next = nextAttemptAt(at, attempt, { retryAfterMs: result.retryAfterMs, random: deps.random });
    const failingSince = await repo.markFailing(webhook.id, at);
    const tooLong = failedTooLong(failingSince, at);
    await repo.recordAttempt(deliveryId, attempt, at, result, {
      status: next && !tooLong ? 'pending' : 'failed',
      nextAttemptAt: tooLong ? null : next,
      finalReason: next && !tooLong ? null : describeFailure(result),
    });
    if (tooLong) {
      await repo.disable(
        webhook.id,
        `Disabled at ${at.toISOString()}: every delivery failed since ${failingSince?.toISOString()} (${DISABLE_AFTER_FAILING_DAYS} days).`,
      );
      return 'disabled';
    }
    if (!next) return 'failed';
    await queue.enqueueAttempts([{ id: deliveryId, attempt: attempt + 1, delayMs: next.getTime() - at.getTime() }]);
    return 'retry';
  }
}
export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
