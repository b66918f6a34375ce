// Standard Webhooks signing: secrets `whsec_<base64>` and the `webhook-*` headers, computed by the
// `standardwebhooks` package itself (the one receivers verify with).
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** 32 random bytes (the Standard Webhooks specification allows 24-64). */
const SECRET_BYTES = 32;
export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString('base64');
}

/** The webhook-id of an event: the same on every attempt and redelivery, so receivers deduplicate. */
export const webhookMessageId = (eventId: number) => `evt_${eventId}`;

/** Headers of one attempt; every secret signs (old and new during a rotation), space-separated. */
export function signedHeaders(
  messageId: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  // Standard Webhooks timestamps are whole seconds.
  const ts = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(ts.getTime() / 1000),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(messageId, ts, body)).join(' '),
  };
}
