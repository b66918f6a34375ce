// Reads pages for the builder through the engine's HTTP layer: the same SSRF guard, timeouts,
// retries and proxy as a Run, and the same HTML parsing.
import { HttpClient, parseHtml, startPageFailureMessage } from '../../engine/index.js';
import type { BuilderPage } from './inference/draft.js';

export interface PageReaderOptions {
  allowPrivateTargets: boolean;
  requestTimeoutMs: number;
  proxyUrl?: string;
  signal: AbortSignal;
  maxRetries?: number;
}

export type ReadResult =
  { ok: true; page: BuilderPage; bytes: number; status: number } | { ok: false; message: string; aborted: boolean };

export function createPageReader(options: PageReaderOptions) {
  const client = new HttpClient({
    maxConcurrency: 2,
    requestTimeoutMs: options.requestTimeoutMs,
    maxRetries: options.maxRetries ?? 1,
    proxyUrl: options.proxyUrl,
    allowPrivateTargets: options.allowPrivateTargets,
    signal: options.signal,
  });
  return {
    async read(url: string): Promise<ReadResult> {
      const result = await client.get(url);
      if (!result.ok) {
        return {
          ok: false,
          aborted: result.failure.kind === 'aborted',
          message: startPageFailureMessage(result.failure).replace(/^Start page/, 'The page'),
        };
      }
      const page = result.page;
      const type = page.contentType ?? '';
      if (type !== '' && !/html|xml/i.test(type)) {
        return {
          ok: false,
          aborted: false,
          message: `The page ${url} is ${type.split(';')[0]}, not HTML: give the address of a web page that lists the records.`,
        };
      }
      return {
        ok: true,
        page: { $: parseHtml(page), url: page.finalUrl },
        bytes: page.body.length,
        status: page.status,
      };
    },
    close: () => client.close(),
  };
}
