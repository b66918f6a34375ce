// The Run's manners around its page source: a URL its host's robots.txt disallows is not fetched (the
// crawl counts it as "skipped by robots.txt"), and browser navigations pass the same per-host gate as
// HTTP requests (host-gate.ts), so both renderers share one limit per host.
import type { HostGate } from './host-gate.js';
import type { AutoRender, FetchResult, PageSource } from './page.js';
import type { RobotsTxt } from './robots.js';

/** Checks each URL against robots.txt before the page source gets it. */
export class RobotsCheckedSource implements PageSource {
  constructor(
    private readonly source: PageSource,
    private readonly robots: RobotsTxt,
    /** What fetches robots.txt, for its bytes and its close. */
    private readonly robotsClient: { readonly receivedBytes: number; close(): Promise<void> },
  ) {}

  get auto(): AutoRender | undefined {
    return this.source.auto;
  }

  get receivedBytes(): number {
    return this.source.receivedBytes + this.robotsClient.receivedBytes;
  }

  async get(url: string, opts?: { canStart?: () => boolean }): Promise<FetchResult> {
    const verdict = await this.robots.check(url);
    if (!verdict.allowed)
      return { ok: false, failure: { url, kind: 'robots-disallowed', message: verdict.why, attempts: 0 } };
    return this.source.get(url, opts);
  }

  async close(): Promise<void> {
    await Promise.all([this.source.close(), this.robotsClient.close()]);
  }
}

/** A browser page source whose navigations (each page with its retries) hold a slot of the host gate. */
export class GatedSource implements PageSource {
  constructor(
    private readonly source: PageSource,
    private readonly gate: HostGate,
    private readonly signal: AbortSignal,
  ) {}

  get auto(): AutoRender | undefined {
    return this.source.auto;
  }

  get receivedBytes(): number {
    return this.source.receivedBytes;
  }

  async get(url: string, opts?: { canStart?: () => boolean }): Promise<FetchResult> {
    let release: () => void;
    try {
      release = await this.gate.acquire(url, this.signal);
    } catch {
      return { ok: false, failure: { url, kind: 'aborted', message: 'stopped before rendering', attempts: 0 } };
    }
    try {
      return await this.source.get(url, opts);
    } finally {
      release();
    }
  }

  close(): Promise<void> {
    return this.source.close();
  }
}
