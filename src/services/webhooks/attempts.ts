// How an attempt goes out, the one path for the worker's scheduled attempts and the API's test event:
// the body signed with the subscription's secrets (the previous one too during its grace after a
// rotation), posted by the sender, its outcome counted in the metrics (lib/metrics.ts): what the
// receiver did (a 2xx, another answer, no answer in time, no connection), how long it took, and a
// subscription disabled by the attempt, by its reason.
import type { Clock } from '../../lib/clock.js';
import { unseal } from '../../lib/crypto.js';
import { recordWebhookAttempt, recordWebhookDisabled, type WebhookAttemptOutcome } from '../../lib/metrics.js';
import type { WebhookPayload } from './events.js';
import { isSuccess, WebhookFailureCode, type AttemptResult, type WebhookSender } from './sender.js';
import { signedHeaders, webhookMessageId } from './signing.js';
import type { WebhookRow, WebhooksRepository } from './webhooks.repository.js';

export type AttemptOutcome = 'success' | 'retry' | 'failed' | 'disabled';

/** The secrets that sign now: the current one, and the previous one during its grace after a rotation. */
export function signingSecrets(
  key: Buffer,
  w: Pick<WebhookRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretUntil'>,
  at: Date,
): string[] {
  const current = unseal(key, w.secretSealed);
  const previous =
    w.previousSecretSealed && w.previousSecretUntil && w.previousSecretUntil > at
      ? unseal(key, w.previousSecretSealed)
      : null;
  return previous ? [current, previous] : [current];
}

/** The metric's outcome label of each failure code (bounded: one label per kind of failure). */
const OUTCOME: Record<WebhookFailureCode, WebhookAttemptOutcome> = {
  RECEIVER_HTTP_ERROR: 'http_error',
  RECEIVER_GONE: 'http_error',
  RECEIVER_TIMEOUT: 'timeout',
  RECEIVER_UNREACHABLE: 'network_error',
  TARGET_REFUSED: 'network_error',
  // Nothing was sent; the attempt that records it reports no metric.
  SUBSCRIPTION_DISABLED: 'network_error',
};

export function attemptOutcomeOf(result: AttemptResult): WebhookAttemptOutcome {
  return result.errorCode === null ? 'success' : OUTCOME[result.errorCode];
}

export function describeFailure(r: AttemptResult): string {
  return r.statusCode !== null ? `The receiver answered ${r.statusCode}.` : `No answer: ${r.error ?? 'unknown error'}.`;
}

export function createAttemptSender(deps: {
  repo: Pick<WebhooksRepository, 'recordAttempt'>;
  sender: Pick<WebhookSender, 'send'>;
  clock: Clock;
  encryptionKey: Buffer;
}) {
  const { repo, sender, clock } = deps;

  /** Signs `body` as the message of event `eventId` at `at` for `webhook`, and posts it. */
  function send(webhook: WebhookRow, eventId: number, body: string, at: Date): Promise<AttemptResult> {
    const secrets = signingSecrets(deps.encryptionKey, webhook, at);
    return sender.send(webhook.url, signedHeaders(webhookMessageId(eventId), at, body, secrets), body);
  }

  /** Counts an attempt's outcome and latency in the metrics. */
  function report(outcome: AttemptOutcome, result: AttemptResult): void {
    recordWebhookAttempt(attemptOutcomeOf(result), result.durationMs / 1000);
    if (outcome === 'disabled')
      recordWebhookDisabled(result.errorCode === WebhookFailureCode.ReceiverGone ? 'gone' : 'failing');
  }

  return {
    send,
    report,
    /** One attempt sent by the API for POST .../test: recorded like any other, never retried. */
    async sendOnce(
      webhook: WebhookRow,
      deliveryId: number,
      eventId: number,
      payload: WebhookPayload,
    ): Promise<{ outcome: AttemptOutcome; result: AttemptResult }> {
      const at = clock.now();
      const result = await send(webhook, eventId, JSON.stringify(payload), at);
      const ok = isSuccess(result);
      await repo.recordAttempt(deliveryId, 1, at, result, {
        status: ok ? 'succeeded' : 'failed',
        nextAttemptAt: null,
        finalReason: ok ? null : describeFailure(result),
      });
      const outcome: AttemptOutcome = ok ? 'success' : 'failed';
      report(outcome, result);
      return { outcome, result };
    },
  };
}
export type AttemptSender = ReturnType<typeof createAttemptSender>;
