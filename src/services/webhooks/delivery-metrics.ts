// Each webhook delivery attempt as metrics (lib/metrics.ts): what the receiver did (a 2xx, another
// answer, no answer in time, no connection) and how long it took; a subscription disabled by the
// attempt is counted by its reason.
import { recordWebhookAttempt, recordWebhookDisabled, type WebhookAttemptOutcome } from '../../lib/metrics.js';
import type { OnAttempt } from './delivery.service.js';
import { WebhookFailureCode, type AttemptResult } from './sender.js';

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

export const recordDeliveryAttempt: OnAttempt = ({ outcome, latencySeconds, result }) => {
  recordWebhookAttempt(attemptOutcomeOf(result), latencySeconds);
  if (outcome === 'disabled')
    recordWebhookDisabled(result.errorCode === WebhookFailureCode.ReceiverGone ? 'gone' : 'failing');
};
