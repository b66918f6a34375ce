// The typed configuration every process reads (built from the environment by config.ts).
import type { StorageSettings } from './storage/index.js';

export interface Config {
  databaseUrl: string;
  /** Connections each API process keeps to PostgreSQL. */
  databasePoolSize: number;
  /** Longest a request waits in line for a pooled connection before answering 503 "busy". */
  databasePoolWaitMs: number;
  redisUrl: string;
  /** Prefix of every Redis key and BullMQ queue of this deployment. */
  redisPrefix: string;
  host: string;
  port: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** LOG_FORMAT: JSON lines (default) or pretty, human-readable lines. */
  logFormat: 'json' | 'pretty';
  publicUrl: string;
  /** PUBLIC_URL was set (otherwise the OpenAPI description points at the origin it is served from). */
  publicUrlConfigured: boolean;
  encryptionKey: Buffer;
  /** The local driver's folder (STORAGE_DIR); with s3 it holds nothing shared. */
  storageDir: string;
  /** Where run files live: STORAGE_DRIVER=local (STORAGE_DIR) or s3 (S3_*). */
  storage: StorageSettings;
  /** CONSOLE_DIR: the built web console served at /console (default: console/dist of this checkout or image). */
  consoleDir: string;
  /** A worker warns when the volume of STORAGE_DIR and the temporary folder has less free than this. */
  storageMinFreeBytes: number;
  engineAllowPrivateTargets: boolean;
  /** WEBHOOK_ATTEMPT_TIMEOUT_SECONDS: how long one webhook delivery attempt may take (15 s by default). */
  webhookAttemptTimeoutMs: number;
  /** CHROMIUM_PATH, BROWSER_MAX_PAGES (per worker), BROWSER_MAX_RSS_MB: the browser renderer. */
  browser: { executablePath: string; maxPages: number; maxRssMb: number };
  /** `enabled: false` (RATE_LIMIT_ENABLED) when a gateway in front already limits; /oauth/token's limits stay. */
  rateLimit: { max: number; windowSeconds: number; queue: number; enabled: boolean };
  bodyLimitBytes: number;
  /** Timeouts of the API's HTTP server (milliseconds), from the HTTP_*_TIMEOUT_SECONDS settings. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number };
  trustProxy: boolean;
  jwt: { issuer: string; audience: string; accessTokenSeconds: number; refreshTokenDays: number };
  externalOAuth: { issuer: string; audience: string; jwksUrl: string } | null;
  apiKeyDefaultDays: number;
  apiKeyCacheSeconds: number;
  runs: {
    workerConcurrency: number;
    defaultTimeoutSeconds: number;
    waitOnFailureSeconds: number;
    waitOnFailureRetries: number;
    reconcileIntervalSeconds: number;
    /** A Run whose worker sent no heartbeat for this long is presumed lost. */
    staleAfterSeconds: number;
    requestTimeoutMs: number;
    /** CPU time one page's parse and extraction may take before the page fails (ENGINE_PAGE_CPU_SECONDS). */
    pageCpuSeconds: number;
    /** Run processes a worker starts ahead of its first Runs. */
    warmProcesses: number;
    /** Longest the API waits on Redis to queue or signal a Run before answering 503. */
    queueTimeoutMs: number;
    /** A stopped Run's requests still in flight are aborted after this long, then it exports. */
    stopGraceSeconds: number;
    /** A synchronous start answers its records inline up to this many bytes; above, 202 with the Run. */
    syncInlineMaxBytes: number;
    /** V8 old-space budget of a run process (MB); 0 leaves Node's default. */
    processMaxOldSpaceMb: number;
    /** STORAGE_RETRY_SECONDS: how long a Run's files wait for an object store that cannot be reached. */
    storageRetrySeconds: number;
    /** RUN_MAX_TAKEOVERS: times a Run whose worker was lost goes on elsewhere from its checkpoint. */
    maxTakeovers: number;
  };
  shutdownGraceSeconds: number;
  /**
   * Prometheus metrics listeners (METRICS_HOST, METRICS_PORT): one per process, the API's on `apiPort`
   * and the worker's on `workerPort` (METRICS_PORT sets the port of the process it is given to); 0: off.
   * `portExplicit`: METRICS_PORT was given, so a port already taken stops the process instead of
   * leaving it without metrics.
   */
  metrics: { host: string; apiPort: number; workerPort: number; portExplicit: boolean };
  schedules: {
    /** How often a worker looks for due Schedules. */
    tickSeconds: number;
    /** Schedules claimed (and their Runs created) per transaction. */
    batchSize: number;
    /** The Run queues this worker consumes: the default one and/or server groups (WORKER_SERVER_GROUPS). */
    workerServerGroups: { default: boolean; groups: number[] };
  };
  billing: {
    /** Credits per unit of each usage type, as exact decimal strings (at most 6 decimal places). */
    prices: {
      serverTimeHour: string;
      exportGb: string;
      agentInput: string;
      proxyDataGb: string;
      exportCpm: string;
    };
    /** How often the worker records the expiry of grants whose expiresAt has passed. */
    expiryIntervalSeconds: number;
    /** credits.low fires when a debit takes the balance below this (an organization may set its own). */
    creditsLowThreshold: string;
  };
  /** /oauth/token attempts per client IP and per username, checked before any password hashing. */
  loginRateLimit: { max: number; windowSeconds: number };
  /** Load shedding (503 + Retry-After) by @fastify/under-pressure; a threshold of 0 turns its check off. */
  loadShedding: { maxEventLoopDelayMs: number; maxHeapUsedBytes: number; retryAfterSeconds: number };
  builder: {
    /** OpenAI-compatible chat endpoint that refines drafts; null: heuristics only. */
    llm: { url: string; model: string; apiKey: string | null; timeoutMs: number } | null;
    workerConcurrency: number;
    /** Longest wait of GET .../events (docs/api-contract.md §8.3: up to 30 s). */
    eventsWaitSeconds: number;
    /** Sessions untouched this long are deleted by the maintenance queue. */
    retentionDays: number;
  };
}
