// Each webhook delivery attempt as metrics (lib/metrics.ts): what the receiver did (a 2xx, another
// answer, no answer in time, no connection) and how long it took; a subscription disabled by the
// attempt is counted by its reason.
import { recordWebhookAttempt, recordWebhookDisabled, type WebhookAttemptOutcome } from '../../lib/metrics.js';
import type { OnAttempt } from './delivery.service.js';
import { isSuccess, type AttemptResult } from './sender.js';

export function attemptOutcomeOf(result: AttemptResult): WebhookAttemptOutcome {
  if (isSuccess(result)) return 'success';
  if (result.statusCode !== null) return 'http_error';
  return result.error === 'timed out' ? 'timeout' : 'network_error';
}

export const recordDeliveryAttempt: OnAttempt = ({ outcome, latencySeconds, result }) => {
  recordWebhookAttempt(attemptOutcomeOf(result), latencySeconds);
  if (outcome === 'disabled') recordWebhookDisabled(result.statusCode === 410 ? 'gone' : 'failing');
};
