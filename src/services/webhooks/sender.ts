// One HTTP attempt of a webhook delivery: POST, no redirects followed, a deadline (15 s unless
// WEBHOOK_ATTEMPT_TIMEOUT_SECONDS says otherwise), the first
// 4 KB of the answer kept. Every attempt checks its target again through the engine's resolvePublic
// (a pre-flight check plus the same check at connect time: DNS may answer differently than when the
// subscription was saved) unless the operator lifted the rule (ENGINE_ALLOW_PRIVATE_TARGETS).
import { Agent, request } from 'undici';
import { connectLookup, resolvePublic, TargetRefusedError, type TargetPolicy } from '../../engine/ssrf.js';
import { retryAfterOf } from '../../engine/retry.js';

/** Why a delivery attempt failed, set where it fails; metrics and clients decide on it. */
export const WebhookFailureCode = {
  /** The receiver answered, but not 2xx (410 Gone has its own code). */
  ReceiverHttpError: 'RECEIVER_HTTP_ERROR',
  /** The receiver answered 410 Gone: the subscription is disabled. */
  ReceiverGone: 'RECEIVER_GONE',
  /** No answer within the attempt's deadline. */
  ReceiverTimeout: 'RECEIVER_TIMEOUT',
  /** No connection: DNS, refused, reset, TLS. */
  ReceiverUnreachable: 'RECEIVER_UNREACHABLE',
  /** The SSRF guard refused the URL: it resolves to a private, loopback or reserved address. */
  TargetRefused: 'TARGET_REFUSED',
  /** Not sent: the subscription was disabled before the attempt was due. */
  SubscriptionDisabled: 'SUBSCRIPTION_DISABLED',
} as const;
export type WebhookFailureCode = (typeof WebhookFailureCode)[keyof typeof WebhookFailureCode];

/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_EXCERPT_BYTES = 4096;

export interface AttemptResult {
  /** null when no answer came (refused, timed out, connection failed). */
  statusCode: number | null;
  durationMs: number;
  responseBody: string;
  error: string | null;
  /** Why the attempt failed; null when the receiver answered 2xx. */
  errorCode: WebhookFailureCode | null;
  /** From a Retry-After header on 429/503. */
  retryAfterMs: number | null;
}

export const isSuccess = (r: AttemptResult) => r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;

export function createWebhookSender(opts: { allowPrivateTargets: boolean; timeoutMs: number }) {
  const { timeoutMs } = opts;
  const policy: TargetPolicy = { allowPrivateTargets: opts.allowPrivateTargets };
  const dispatcher = new Agent({
    connect: { timeout: timeoutMs, ...(opts.allowPrivateTargets ? {} : { lookup: connectLookup(policy) }) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      // An IP literal is never looked up, so the connect-time guard alone would not see it.
      if (!opts.allowPrivateTargets) await resolvePublic(new URL(url), policy);
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const excerpt = await readExcerpt(res.body);
      return {
        statusCode: res.statusCode,
        durationMs: elapsed(),
        responseBody: excerpt,
        error: null,
        errorCode: answerCode(res.statusCode),
        retryAfterMs: retryAfterOf(res.statusCode, headerValue(res.headers['retry-after'])) ?? null,
      };
    } catch (err) {
      const { code, message } = classify(err);
      return {
        statusCode: null,
        durationMs: elapsed(),
        responseBody: '',
        error: message,
        errorCode: code,
        retryAfterMs: null,
      };
    }
  }

  return { send, close: () => dispatcher.close() };
}
export type WebhookSender = ReturnType<typeof createWebhookSender>;

function headerValue(v: string | string[] | undefined): string | null {
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_EXCERPT_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
}

function answerCode(status: number): WebhookFailureCode | null {
  if (status >= 200 && status < 300) return null;
  return status === 410 ? WebhookFailureCode.ReceiverGone : WebhookFailureCode.ReceiverHttpError;
}

/** Why no answer came: its code, and the words kept with the attempt. */
function classify(err: unknown): { code: WebhookFailureCode; message: string } {
  if (err instanceof TargetRefusedError) return { code: WebhookFailureCode.TargetRefused, message: err.message };
  const e = err as { name?: string; code?: string; message?: string };
  if (
    e.name === 'TimeoutError' ||
    e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e.code === 'UND_ERR_BODY_TIMEOUT' ||
    e.code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return { code: WebhookFailureCode.ReceiverTimeout, message: 'timed out' };
  }
  const message = e.code ? `${e.code}: ${e.message ?? ''}` : (e.message ?? String(err));
  return { code: WebhookFailureCode.ReceiverUnreachable, message };
}
