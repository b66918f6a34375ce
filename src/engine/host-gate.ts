// The per-host manners of one Run, shared by both renderers: at most `perHostConcurrency` requests to a
// host at once, starts spaced by the largest of minDelayMs, 60000 / maxRequestsPerMinute and the host's
// robots.txt Crawl-delay, and a host that asked to wait (429 or 503 with Retry-After) waited for by
// every request to it, not only by the one retried. A host is a URL's `host` (name and port).
import { setTimeout as delay } from 'node:timers/promises';
import { MAX_DELAY_MS } from './definition-politeness.js';
import { ConcurrencyLimiter } from './limiter.js';
import { MAX_RETRY_AFTER_MS } from './retry.js';

export interface HostGateSettings {
  perHostConcurrency: number;
  minDelayMs: number;
  maxRequestsPerMinute?: number;
}

interface HostState {
  slots: ConcurrencyLimiter;
  crawlDelayMs: number;
  /** No request to the host starts before this time (spacing). */
  nextStartAt: number;
  /** The host asked to wait until this time (Retry-After). */
  pausedUntil: number;
  /** Spaced starts are taken one at a time: each waits for the previous one's turn. */
  turn: Promise<void>;
}

const noop = () => {};

export class HostGate {
  readonly #hosts = new Map<string, HostState>();
  /** Spacing from the definition alone (before any Crawl-delay). */
  readonly #spacingMs: number;

  constructor(
    private readonly settings: HostGateSettings,
    private readonly now: () => number = Date.now,
  ) {
    const rate = settings.maxRequestsPerMinute ? Math.ceil(60_000 / settings.maxRequestsPerMinute) : 0;
    this.#spacingMs = Math.max(settings.minDelayMs, rate);
  }

  #host(url: string): HostState {
    const key = hostOf(url);
    let state = this.#hosts.get(key);
    if (!state) {
      state = {
        slots: new ConcurrencyLimiter(this.settings.perHostConcurrency),
        crawlDelayMs: 0,
        nextStartAt: 0,
        pausedUntil: 0,
        turn: Promise.resolve(),
      };
      this.#hosts.set(key, state);
    }
    return state;
  }

  /** robots.txt's Crawl-delay for the host of `url` (bounded by MAX_DELAY_MS). */
  setCrawlDelay(url: string, ms: number): void {
    this.#host(url).crawlDelayMs = Math.min(Math.max(0, ms), MAX_DELAY_MS);
  }

  /** The host of `url` asked to wait `ms` (Retry-After, bounded like a retry's wait): every request to it waits. */
  slowDown(url: string, ms: number): void {
    const host = this.#host(url);
    host.pausedUntil = Math.max(host.pausedUntil, this.now() + Math.min(ms, MAX_RETRY_AFTER_MS));
  }

  /** The spacing between two starts at the host of `url`. */
  spacingOf(url: string): number {
    return Math.max(this.#spacingMs, this.#host(url).crawlDelayMs);
  }

  /**
   * Waits for a slot at the host of `url` and for its turn, then for `inner` (the Run-wide limit), so a
   * request never holds a Run-wide slot while it waits for its host. Resolves with the release of both.
   */
  async acquire(url: string, signal: AbortSignal, inner?: () => Promise<() => void>): Promise<() => void> {
    const host = this.#host(url);
    const releaseHost = await host.slots.acquire(signal);
    let releaseInner: () => void = noop;
    try {
      const spacing = Math.max(this.#spacingMs, host.crawlDelayMs);
      if (spacing === 0 && host.pausedUntil <= this.now()) {
        if (inner) releaseInner = await inner();
      } else {
        const previous = host.turn;
        let done = noop;
        host.turn = new Promise((resolve) => (done = resolve));
        try {
          await previous;
          for (let wait = this.#waitOf(host); wait > 0; wait = this.#waitOf(host))
            await delay(wait, undefined, { signal });
          if (inner) releaseInner = await inner();
          host.nextStartAt = this.now() + Math.max(this.#spacingMs, host.crawlDelayMs);
        } finally {
          done();
        }
      }
    } catch (error) {
      releaseHost();
      throw error;
    }
    return () => {
      releaseInner();
      releaseHost();
    };
  }

  /**
   * A request to the host of `url` went on a connection: the next start is spaced from then too, so a
   * request that took long to connect does not shorten the gap the site sees.
   */
  departed(url: string): void {
    const host = this.#hosts.get(hostOf(url));
    if (!host) return;
    const spacing = Math.max(this.#spacingMs, host.crawlDelayMs);
    if (spacing > 0) host.nextStartAt = Math.max(host.nextStartAt, this.now() + spacing);
  }

  #waitOf(host: HostState): number {
    return Math.max(host.nextStartAt, host.pausedUntil) - this.now();
  }
}

/** The host of a URL as the gate counts it (name and port); the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The slots one request holds while it is on the wire: its host's slot of the gate (when there is a gate)
 * and a Run-wide one (`inner`). A redirect to another host gives both back and waits for the new host's,
 * so each hop counts under its own host's limits, and no request waits while it holds a slot another
 * request is waiting for.
 */
export class RequestSlots {
  #release: (() => void) | undefined;
  /** The hop whose host's slot is held. */
  #at: string;

  constructor(
    private readonly gate: HostGate | undefined,
    private readonly inner: () => Promise<() => void>,
    private readonly signal: AbortSignal,
    url: string,
  ) {
    this.#at = url;
  }

  /** The URL of the hop the slots are held for. */
  get at(): string {
    return this.#at;
  }

  /** Waits for the slots of `url`'s host (giving back those held). */
  async hold(url: string): Promise<void> {
    this.release();
    this.#release = await (this.gate ? this.gate.acquire(url, this.signal, this.inner) : this.inner());
    this.#at = url;
  }

  /** Before a redirect hop goes out: the new host's slots when the host changes (nothing to wait for otherwise). */
  redirect(hop: string): Promise<void> | undefined {
    return this.gate && hostOf(hop) !== hostOf(this.#at) ? this.hold(hop) : undefined;
  }

  release(): void {
    this.#release?.();
    this.#release = undefined;
  }
}
