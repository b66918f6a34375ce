// The SSRF rule, in one place: every outbound hop (a page, each redirect, a Run's proxy, a browser
// sub-request through the guard proxy, with or without an upstream proxy, a webhook target, a proxy or
// webhook URL checked when it is saved) is resolved and checked by resolvePublic. Every address a name
// resolves to must be public, since the connection may use any of them. The connect-time lookups below
// call the same function, so the address a socket opens is the address that was checked.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { classifyAddress, type AddressKind } from './address-class.js';

export const ALLOW_PRIVATE_TARGETS_HINT = 'set ENGINE_ALLOW_PRIVATE_TARGETS=true to allow';

export type HopRole = 'target' | 'proxy';

/**
 * A target or proxy that is not public. The message is the same whether anything listens there or
 * not: nothing was sent, so open, closed and silent ports cannot be told apart.
 */
export class TargetRefusedError extends Error {
  readonly code = 'ERR_TARGET_REFUSED';
  /** The class of the refused address (loopback, link-local, ...). */
  readonly kind: Exclude<AddressKind, 'public'>;
  constructor(
    /** The target URL, or for a proxy its `host:port` (a proxy URL may carry credentials). */
    readonly url: string,
    readonly address: string,
    readonly role: HopRole = 'target',
  ) {
    super(
      role === 'proxy'
        ? `refused to use the proxy ${url}: it resolves to a private address (${address}); ${ALLOW_PRIVATE_TARGETS_HINT}`
        : `refused to fetch ${url}: target resolves to a private address (${address}); ${ALLOW_PRIVATE_TARGETS_HINT}`,
    );
    this.name = 'TargetRefusedError';
    const kind = classifyAddress(address);
    this.kind = kind === 'public' ? 'reserved' : kind;
  }
}

export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

export const resolveHostWithDns: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** What a hop may reach. */
export interface TargetPolicy {
  /** The operator lifted the rule (ENGINE_ALLOW_PRIVATE_TARGETS=true): names are resolved, nothing is refused. */
  allowPrivateTargets: boolean;
  /**
   * Which resolved addresses are refused; by default every address that is not public. Tests use it to
   * let a fixture on loopback through as if it were public. `port` is unknown at connect-time lookups.
   */
  isRefusedAddress?: (address: string, port: number | undefined) => boolean;
  /** How names are looked up; DNS by default. */
  resolveHost?: ResolveHost;
}

export const GUARDED: TargetPolicy = { allowPrivateTargets: false };

/** A hop named by host and port (a CONNECT authority, a name a socket looks up). */
export interface Hop {
  hostname: string;
  port?: number;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy rule, the same for both renderers and for proxy pools: a proxy is an `http:` or `https:`
 * URL (with optional credentials); it must resolve to public addresses like any target, checked before
 * the first request and at every connection to it; and the target behind it is checked too, by our own
 * DNS, although the proxy resolves the name itself.
 */
export const PROXY_PROTOCOLS: readonly string[] = ['http:', 'https:'];

/** Throws a TypeError for a proxy URL the proxy rule does not accept. */
export function assertProxyProtocol(proxy: URL): void {
  if (!PROXY_PROTOCOLS.includes(proxy.protocol)) {
    throw new TypeError(`a proxy must be an http:// or https:// URL, not ${proxy.protocol}`);
  }
}

/** `host:port` of a proxy URL: how a proxy is named in messages, without its credentials. */
export function proxyLabel(proxy: URL): string {
  return `${proxy.hostname}:${proxy.port || DEFAULT_PORTS[proxy.protocol] || 80}`;
}

/**
 * The host as the WHATWG URL parser canonicalizes it, without brackets: `0xa9fea9fe`, `2852039166`
 * and `0251.0376.0251.0376` all become `169.254.169.254`, so no spelling slips past the classifier.
 */
function canonicalHost(hostname: string): string {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare.split('%')[0])) return bare;
  try {
    return new URL(`http://${bare}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return bare;
  }
}

function labelOf(hop: URL | Hop, role: HopRole, hostname: string, port: number | undefined): string {
  if (role === 'proxy') return hop instanceof URL ? proxyLabel(hop) : port ? `${hostname}:${port}` : hostname;
  return hop instanceof URL ? hop.href : `host ${hostname}`;
}

/**
 * Resolves a hop's host and checks every address against the policy. Returns the addresses (connect
 * to one of these, so what was checked is what is reached); throws TargetRefusedError naming the hop
 * (a proxy by `host:port` only) when any address is refused. IP literals are checked without DNS.
 * DNS errors propagate.
 */
export async function resolvePublic(
  hop: URL | Hop,
  policy: TargetPolicy,
  role: HopRole = 'target',
): Promise<LookupAddress[]> {
  const hostname = canonicalHost(hop.hostname);
  const port = hop instanceof URL ? Number(hop.port || DEFAULT_PORTS[hop.protocol] || 80) : hop.port;
  const family = isIP(hostname.split('%')[0]);
  const addresses = family
    ? [{ address: hostname, family }]
    : await (policy.resolveHost ?? resolveHostWithDns)(hostname);
  if (policy.allowPrivateTargets) return addresses;
  const isRefused = policy.isRefusedAddress ?? ((address: string) => classifyAddress(address) !== 'public');
  const refused = addresses.find((entry) => isRefused(entry.address, port));
  if (refused) throw new TargetRefusedError(labelOf(hop, role, hostname, port), refused.address, role);
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type ConnectLookup = (
  hostname: string,
  options: LookupOptions | LookupAllOptions,
  callback: LookupCallback,
) => void;

/**
 * A `lookup` for net.connect (and undici's connectors) that resolves through resolvePublic at connect
 * time, closing the window between the pre-flight check and the connection (DNS rebinding). A refusal
 * names the host, or for `role` 'proxy' the proxy.
 */
export function connectLookup(policy: TargetPolicy, role: HopRole = 'target'): ConnectLookup {
  return (hostname, options, callback) => {
    const byFamily: ResolveHost = async (name) => {
      const all = await (policy.resolveHost ?? resolveHostWithDns)(name);
      return options.family ? all.filter((entry) => entry.family === options.family) : all;
    };
    resolvePublic({ hostname }, { ...policy, resolveHost: byFamily }, role).then(
      (addresses) => {
        if (addresses.length === 0) {
          return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
        }
        if (options.all) return callback(null, addresses);
        return callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
