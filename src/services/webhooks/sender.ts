// One HTTP attempt of a webhook delivery: POST, no redirects followed, a deadline (15 s unless
// WEBHOOK_ATTEMPT_TIMEOUT_SECONDS says otherwise), the first
// 4 KB of the answer kept. Every attempt checks its target again through the engine's resolvePublic
// (a pre-flight check plus the same check at connect time: DNS may answer differently than when the
// subscription was saved) unless the operator lifted the rule (ENGINE_ALLOW_PRIVATE_TARGETS).
import { Agent, request } from 'undici';
import { connectLookup, resolvePublic, TargetRefusedError, type TargetPolicy } from '../../engine/ssrf.js';
import { retryAfterOf } from '../../engine/retry.js';

/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_EXCERPT_BYTES = 4096;

export interface AttemptResult {
  /** null when no answer came (refused, timed out, connection failed). */
  statusCode: number | null;
  durationMs: number;
  responseBody: string;
  error: string | null;
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
        retryAfterMs: retryAfterOf(res.statusCode, headerValue(res.headers['retry-after'])) ?? null,
      };
    } catch (err) {
      return { statusCode: null, durationMs: elapsed(), responseBody: '', error: describe(err), retryAfterMs: null };
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

function describe(err: unknown): string {
  if (err instanceof TargetRefusedError) return err.message;
  const e = err as { name?: string; code?: string; message?: string };
  if (
    e.name === 'TimeoutError' ||
    e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e.code === 'UND_ERR_BODY_TIMEOUT' ||
    e.code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return 'timed out';
  }
  return e.code ? `${e.code}: ${e.message ?? ''}` : (e.message ?? String(err));
}
