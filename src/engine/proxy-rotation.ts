// The rotation of a Run's proxy pool (ProxyPoolRotation, the rule of both renderers), and the routes of its
// HTTP requests: direct, or through the proxies of its pool, rotated as the definition's `proxy.rotation` says. Each proxy obeys the proxy rule of ssrf.ts (checked before its first
// request and at every connection) and gets its own connection-reusing dispatcher, created on first use.
// A proxy answered with a ban (a `banStatuses` status when the pool has another proxy to turn to, or a
// body holding `banText`) is banned for the rest of the Run; the request is retried through another one.
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import type { ProxyRotationMode } from './definition-politeness.js';
import {
  assertProxyProtocol,
  connectLookup,
  proxyLabel,
  resolvePublic,
  TargetRefusedError,
  type TargetPolicy,
} from './ssrf.js';

export interface ProxyRotationSettings {
  rotation: ProxyRotationMode;
  banStatuses: number[];
  banText?: string;
}

export type ProxyOutcome = 'ok' | 'ban' | 'error';

export interface ProxyRoute {
  /** `host:port` of the proxy (never its credentials); undefined for the direct route. */
  readonly label: string | undefined;
  readonly dispatcher: Dispatcher;
  /** The proxy's pre-flight check (once per proxy); undefined when there is nothing to check. */
  readonly check: Promise<void> | undefined;
}

export interface ProxyRoutesOptions {
  policy: TargetPolicy;
  /** The Run's proxies, its own (perRun) proxy first; empty for direct requests. */
  proxyUrls: string[];
  settings?: ProxyRotationSettings;
  requestTimeoutMs: number;
  onOutcome?: (label: string, outcome: ProxyOutcome) => void;
}

/**
 * Which proxy of a pool the next attempt goes through, as `rotation` says, and which proxies are banned:
 * the rule both renderers follow (ProxyRoutes over HTTP, the browser source per page). Outcomes are
 * counted per proxy label (`host:port`) through `onOutcome`.
 */
export class ProxyPoolRotation {
  readonly #banned = new Set<number>();
  readonly #settings: ProxyRotationSettings;
  /** The proxy in use (perRun, untilFailure), or the next one's turn (perRequest). */
  #current = 0;

  constructor(
    /** The pool's proxies as the evidence names them (`host:port`, never credentials). */
    private readonly labels: string[],
    settings: ProxyRotationSettings | undefined,
    private readonly onOutcome?: (label: string, outcome: ProxyOutcome) => void,
  ) {
    this.#settings = settings ?? { rotation: 'perRun', banStatuses: [] };
  }

  /** The index of the next attempt's proxy, or null when every proxy of the pool is banned. */
  next(): number | null {
    const n = this.labels.length;
    for (let k = 0; k < n; k++) {
      const index = (this.#current + k) % n;
      if (this.#banned.has(index)) continue;
      // perRequest: the next request goes to the proxy after this one.
      this.#current = this.#settings.rotation === 'perRequest' ? index + 1 : index;
      return index;
    }
    return null;
  }

  /** Whether an answer means the proxy is banned. */
  isBan(status: number, body: Buffer | string): boolean {
    const { banStatuses, banText } = this.#settings;
    // Without another proxy to turn to, a ban status is the site's answer, as it always was.
    if (this.labels.length > 1 && banStatuses.includes(status)) return true;
    if (banText === undefined) return false;
    return typeof body === 'string' ? body.includes(banText) : body.includes(banText, 0, 'utf8');
  }

  /** What an attempt through proxy `index` came to: counted; a ban bans it, an error moves untilFailure on. */
  report(index: number, outcome: ProxyOutcome): void {
    if (outcome === 'ban') this.#banned.add(index);
    if (outcome === 'error' && this.#settings.rotation === 'untilFailure' && this.#current === index)
      this.#current = index + 1;
    this.onOutcome?.(this.labels[index], outcome);
  }

  /** Whether some proxy of the pool is not banned (a banned request is worth another attempt). */
  get anyLeft(): boolean {
    return this.#banned.size < this.labels.length;
  }
}

export class ProxyRoutes {
  readonly #urls: URL[];
  readonly #texts: string[];
  readonly #routes: Array<ProxyRoute | undefined>;
  readonly #rotation: ProxyPoolRotation;
  #direct: ProxyRoute | undefined;

  constructor(private readonly options: ProxyRoutesOptions) {
    this.#urls = options.proxyUrls.map(parseProxyUrl);
    this.#texts = options.proxyUrls;
    this.#routes = this.#urls.map(() => undefined);
    this.#rotation = new ProxyPoolRotation(this.#urls.map(proxyLabel), options.settings, options.onOutcome);
  }

  get viaProxy(): boolean {
    return this.#urls.length > 0;
  }

  /** The route of the next attempt, or null when every proxy of the pool is banned. */
  pick(): { route: ProxyRoute; index: number } | null {
    if (this.#urls.length === 0) return { route: (this.#direct ??= this.#directRoute()), index: -1 };
    const index = this.#rotation.next();
    if (index === null) return null;
    return { route: (this.#routes[index] ??= this.#proxyRoute(this.#urls[index], this.#texts[index])), index };
  }

  /** Whether an answer means the proxy is banned (only through a pool). */
  isBan(status: number, body: Buffer): boolean {
    return this.#urls.length > 0 && this.#rotation.isBan(status, body);
  }

  /** What a route's attempt came to (nothing for the direct route). */
  report(index: number, outcome: ProxyOutcome): void {
    if (index >= 0) this.#rotation.report(index, outcome);
  }

  /** Whether some proxy of the pool is not banned (a banned request is worth another attempt). */
  get anyLeft(): boolean {
    return this.#rotation.anyLeft;
  }

  async close(destroy: boolean): Promise<void> {
    const all = [this.#direct, ...this.#routes].filter((r): r is ProxyRoute => r !== undefined);
    await Promise.all(all.map((r) => (destroy ? r.dispatcher.destroy() : r.dispatcher.close())));
  }

  #timeouts() {
    const t = this.options.requestTimeoutMs;
    return { headersTimeout: t, bodyTimeout: t, keepAliveTimeout: 10_000 };
  }

  #directRoute(): ProxyRoute {
    const { policy, requestTimeoutMs } = this.options;
    const dispatcher = new Agent({
      ...this.#timeouts(),
      connect: {
        timeout: requestTimeoutMs,
        // Re-checked at connect time so a DNS answer that changes after the pre-flight check cannot slip through.
        ...(policy.allowPrivateTargets ? {} : { lookup: connectLookup(policy) }),
      },
    });
    return { label: undefined, dispatcher, check: undefined };
  }

  #proxyRoute(proxy: URL, text: string): ProxyRoute {
    const { policy, requestTimeoutMs } = this.options;
    // Proxy pools are chosen by tenants, so a proxy obeys the same rule as a target: checked before
    // the first request (IP literals) and at every connection (names that resolve differently later).
    // A DNS failure here is left to the connection, which reports it with the proxy's name.
    let check: Promise<void> | undefined;
    if (!policy.allowPrivateTargets) {
      check = resolvePublic(proxy, policy, 'proxy').then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof TargetRefusedError) throw error;
        },
      );
      check.catch(() => {});
    }
    const dispatcher = new ProxyAgent({
      uri: text,
      ...this.#timeouts(),
      connect: { timeout: requestTimeoutMs },
      ...(policy.allowPrivateTargets ? {} : { proxyTls: { lookup: connectLookup(policy, 'proxy') } }),
    });
    return { label: proxyLabel(proxy), dispatcher, check };
  }
}

/** A proxy URL parsed and held to the proxy rule (http: or https:). */
export function parseProxyUrl(text: string): URL {
  let proxy: URL;
  try {
    proxy = new URL(text);
  } catch {
    // Not quoted: a proxy URL may carry credentials.
    throw new TypeError('proxyUrl is not a valid URL');
  }
  assertProxyProtocol(proxy);
  return proxy;
}
