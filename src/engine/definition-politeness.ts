// How an Agent treats the sites it crawls (`politeness`: robots.txt, requests per host at once, spacing
// between them, a rate) and how its Run uses a proxy pool (`proxy`: which proxy each request goes
// through, and what counts as a proxy being banned). Both apply with their defaults to every Agent.
import { Type, type Static } from '@sinclair/typebox';

export const DEFAULT_RESPECT_ROBOTS_TXT = true;
export const DEFAULT_PER_HOST_CONCURRENCY = 2;
export const DEFAULT_MIN_DELAY_MS = 0;
/** Spacing and Crawl-delay above this are not honoured longer (a Run must still be able to finish). */
export const MAX_DELAY_MS = 60_000;
export const MAX_REQUESTS_PER_MINUTE = 6_000;
export const MAX_PER_HOST_CONCURRENCY = 100;

export const PolitenessSchema = Type.Object(
  {
    respectRobotsTxt: Type.Optional(
      Type.Boolean({
        description: `Fetch each host's robots.txt once per Run and skip the URLs it disallows for the Agent's user agent; its Crawl-delay spaces requests to the host (default ${DEFAULT_RESPECT_ROBOTS_TXT}).`,
      }),
    ),
    perHostConcurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PER_HOST_CONCURRENCY,
        description: `Requests to one host at the same time (default ${DEFAULT_PER_HOST_CONCURRENCY}); the Run-wide concurrency limit still applies.`,
      }),
    ),
    minDelayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_DELAY_MS,
        description: `Milliseconds between the starts of two requests to one host (default ${DEFAULT_MIN_DELAY_MS}).`,
      }),
    ),
    maxRequestsPerMinute: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_REQUESTS_PER_MINUTE,
        description: 'Requests per minute to one host at most, spread evenly (60000 / n ms between starts).',
      }),
    ),
  },
  {
    title: 'AgentPoliteness',
    additionalProperties: false,
    description: 'How the Agent treats the sites it crawls; every Agent has the defaults.',
    example: { respectRobotsTxt: true, perHostConcurrency: 2, minDelayMs: 250, maxRequestsPerMinute: 120 },
  },
);
export type Politeness = Static<typeof PolitenessSchema>;

export const PROXY_ROTATIONS = ['perRun', 'perRequest', 'untilFailure'] as const;
export type ProxyRotationMode = (typeof PROXY_ROTATIONS)[number];
export const DEFAULT_PROXY_ROTATION: ProxyRotationMode = 'perRun';
export const DEFAULT_BAN_STATUSES = [403, 429];

export const ProxyRotationSchema = Type.Object(
  {
    rotation: Type.Optional(
      Type.Union(
        PROXY_ROTATIONS.map((r) => Type.Literal(r)),
        {
          description:
            'perRun (default): one proxy of the pool for the Run, the next one once it is banned; perRequest: the next proxy of the pool for every request; untilFailure: one proxy until it is banned or fails to connect, then the next.',
        },
      ),
    ),
    banStatuses: Type.Optional(
      Type.Array(Type.Integer({ minimum: 400, maximum: 599 }), {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
        description: `HTTP statuses that mean the proxy is banned (default ${DEFAULT_BAN_STATUSES.join(', ')}): the request is retried through another proxy of the pool.`,
      }),
    ),
    banText: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'A page whose body contains this text means the proxy is banned (a block page served with 200).',
      }),
    ),
  },
  {
    title: 'AgentProxyRotation',
    additionalProperties: false,
    description: "How the Run uses its proxy pool (the Agent's or the Run's); no effect without a pool.",
    example: { rotation: 'perRequest', banStatuses: [403, 429], banText: 'Access denied' },
  },
);
export type ProxyRotation = Static<typeof ProxyRotationSchema>;

/** The politeness of a definition, defaults filled in. */
export function politenessOf(def: {
  politeness?: Politeness;
}): Required<Omit<Politeness, 'maxRequestsPerMinute'>> & Pick<Politeness, 'maxRequestsPerMinute'> {
  const p = def.politeness ?? {};
  return {
    respectRobotsTxt: p.respectRobotsTxt ?? DEFAULT_RESPECT_ROBOTS_TXT,
    perHostConcurrency: p.perHostConcurrency ?? DEFAULT_PER_HOST_CONCURRENCY,
    minDelayMs: p.minDelayMs ?? DEFAULT_MIN_DELAY_MS,
    ...(p.maxRequestsPerMinute !== undefined ? { maxRequestsPerMinute: p.maxRequestsPerMinute } : {}),
  };
}

/** The proxy rotation of a definition, defaults filled in. */
export function proxyRotationOf(def: { proxy?: ProxyRotation }): {
  rotation: ProxyRotationMode;
  banStatuses: number[];
  banText?: string;
} {
  const p = def.proxy ?? {};
  return {
    rotation: p.rotation ?? DEFAULT_PROXY_ROTATION,
    banStatuses: p.banStatuses ?? DEFAULT_BAN_STATUSES,
    ...(p.banText !== undefined ? { banText: p.banText } : {}),
  };
}
