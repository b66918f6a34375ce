// Why one HTTP attempt failed, in the words of the failed-page report, and whether it is worth a retry.
import type { FailureKind } from './page.js';
import { TargetRefusedError } from './ssrf.js';

export class AttemptFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly retryable: boolean,
    readonly extra: { status?: number; body?: Buffer; contentType?: string | null; retryAfterMs?: number } = {},
  ) {
    super(message);
  }

  /** What the server asked to wait before the next attempt (Retry-After). */
  get retryAfterMs(): number | undefined {
    return this.extra.retryAfterMs;
  }
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return undefined;
}

function findTargetRefused(error: unknown): TargetRefusedError | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof TargetRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export function classifyNetworkError(error: unknown, url: URL, proxy?: string): AttemptFailure {
  const refused = findTargetRefused(error);
  if (refused) {
    const named =
      refused.role === 'proxy'
        ? new TargetRefusedError(proxy ?? refused.url, refused.address, 'proxy')
        : new TargetRefusedError(url.href, refused.address);
    return new AttemptFailure('target-refused', named.message, false);
  }
  const host = url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const code = errorCode(error);
  switch (code) {
    case 'ENOTFOUND':
      return new AttemptFailure('dns', `could not resolve host ${host}`, false);
    case 'EAI_AGAIN':
      return new AttemptFailure('dns', `could not resolve host ${host} (temporary DNS failure)`, true);
    case 'ECONNREFUSED':
      return new AttemptFailure('refused', `connection refused by ${host}:${port}`, true);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return new AttemptFailure('reset', `connection reset by ${host}:${port}`, true);
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new AttemptFailure('timeout', `connection to ${host}:${port} timed out`, true);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new AttemptFailure('network', `host ${host} is unreachable`, true);
  }
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT') || code?.startsWith('ERR_SSL')) {
    return new AttemptFailure('tls', `TLS error with ${host}: ${(error as Error).message}`, false);
  }
  return new AttemptFailure(
    'network',
    `network error: ${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}`,
    true,
  );
}
