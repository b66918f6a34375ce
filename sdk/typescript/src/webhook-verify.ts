// Standard Webhooks verification of an event the service delivered: the signature is
// base64(HMAC-SHA256(secret, `${webhook-id}.${webhook-timestamp}.${body}`)), prefixed `v1,`; the
// webhook-signature header may hold several (space-separated, during a secret rotation) and one match
// is enough. A timestamp more than five minutes from now is refused (replays).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The verification failed: wrong secret, altered body, missing headers or an old timestamp. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a delivery and answers its parsed payload (`{ type, timestamp, data }`); throws
 * WebhookVerificationError otherwise. `body` is the raw request body, exactly as received.
 */
export function verifyWebhook(
  secret: string,
  body: string | Uint8Array,
  headers: HeaderBag,
  opts: { now?: Date } = {},
): unknown {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-* headers');
  const seconds = Number(timestamp);
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (!Number.isInteger(seconds) || Math.abs(now - seconds) > TOLERANCE_SECONDS)
    throw new WebhookVerificationError('timestamp too old or too new');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${text}`).digest();
  const match = signatures.split(' ').some((candidate) => {
    const [version, sig] = candidate.split(',');
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) throw new WebhookVerificationError('no matching signature');
  return JSON.parse(text) as unknown;
}
