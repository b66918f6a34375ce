// Rate limits (docs/api-contract.md, Limits). Each API key has its own budget, a Bearer caller one
// per user, anything else one per client IP; /health/*, /swagger* and /.well-known/* are free. Over
// budget a request waits its turn (FIFO, shared through Redis) or gets 429 with Retry-After. Also the
// stricter /oauth/token budgets per client IP and per username (password guessing).
//
// Registered before the auth plugin: a request without credentials (or to a public route) is limited
// by IP in onRequest, before anything else runs; a request with credentials is limited by its key or
// user by the auth hook, as soon as it knows whose budget it is, before the body is read.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sha256Hex } from '../../lib/crypto.js';
import { RateLimitedError } from '../../lib/errors.js';
import { recordRateLimitDecision, type RateLimitScope } from '../../lib/metrics.js';
import { createRateLimiter, type RateLimiter } from '../../services/rate-limit/limiter.service.js';
import { createRedisStore } from '../../services/rate-limit/redis-store.js';
import {
  bucketFor,
  createMemoryStore,
  isExempt,
  type BudgetOwner,
  type LimitPolicy,
} from '../../services/rate-limit/rules.js';
import { requiresCredentials } from './auth.js';

declare module 'fastify' {
  interface FastifyInstance {
    rateLimit: {
      limiter: RateLimiter;
      /**
       * Takes the budget of `owner` for the request: undefined when done at once (limits off, or a
       * slot of the budget's current batch), else a promise (a Redis step, perhaps a wait in line).
       */
      take(request: FastifyRequest, reply: FastifyReply, owner: BudgetOwner): Promise<void> | undefined;
      /** Takes one /oauth/token attempt from the client IP's and (password grant) the username's budgets. */
      guardTokenRequest(ip: string, username: string | undefined): Promise<void>;
    };
  }
}

/** A waiter's place is kept this long without a poll (it polls at least every second). */
const LEASE_MS = 5000;

export default fp(
  async function rateLimitPlugin(app: FastifyInstance) {
    const { config } = app;
    const policy: LimitPolicy = {
      max: config.rateLimit.max,
      windowMs: config.rateLimit.windowSeconds * 1000,
      queue: config.rateLimit.queue,
    };
    // Password guesses are refused, not queued.
    const loginPolicy: LimitPolicy = {
      max: config.loginRateLimit.max,
      windowMs: config.loginRateLimit.windowSeconds * 1000,
      queue: 0,
    };

    // Fails at once while Redis is away, so requests fall back to in-memory budgets instead of
    // waiting for reconnection attempts; the limiter logs the change of state once.
    const redis = app.requestRedis;

    const limiter = createRateLimiter({
      shared: createRedisStore(redis, { prefix: config.redisPrefix, leaseMs: LEASE_MS }),
      sharedReady: () => redis.status === 'ready',
      local: createMemoryStore(app.clock),
      clock: app.clock,
      log: app.log,
    });

    /** The limiter's decision, counted in the metrics (a refusal is a RateLimitedError). */
    async function acquireCounted(scope: RateLimitScope, bucket: string, p: LimitPolicy, signal?: AbortSignal) {
      try {
        const served = await limiter.acquire(bucket, p, signal);
        recordRateLimitDecision(scope, 'allowed');
        return served;
      } catch (err) {
        if (err instanceof RateLimitedError) recordRateLimitDecision(scope, 'limited');
        throw err;
      }
    }

    function limit(reply: FastifyReply, bucket: string): Promise<void> | undefined {
      const served = limiter.tryAcquire(bucket);
      if (!served) return limitShared(reply, bucket);
      recordRateLimitDecision('request', 'allowed');
      reply.header('X-RateLimit-Remaining', String(served.remaining));
      return undefined;
    }

    async function limitShared(reply: FastifyReply, bucket: string): Promise<void> {
      const res = reply.raw;
      const gone = new AbortController();
      // A response closed before it finished: the client went away, so its place in line is freed.
      const onClose = () => {
        if (!res.writableFinished) gone.abort();
      };
      res.once('close', onClose);
      try {
        const { remaining } = await acquireCounted('request', bucket, policy, gone.signal);
        reply.header('X-RateLimit-Remaining', String(remaining));
      } catch (err) {
        if (err instanceof RateLimitedError) reply.header('X-RateLimit-Remaining', '0');
        throw err;
      } finally {
        res.off('close', onClose);
      }
    }

    app.decorate('rateLimit', {
      limiter,
      take: (request: FastifyRequest, reply: FastifyReply, owner: BudgetOwner) =>
        config.rateLimit.enabled ? limit(reply, bucketFor(owner, request.ip)) : undefined,
      async guardTokenRequest(ip: string, username: string | undefined) {
        await acquireCounted('login', `login-ip:${ip}`, loginPolicy);
        // Digest: usernames are e-mail addresses and do not belong in Redis key names.
        if (username) {
          await acquireCounted('login', `login-user:${sha256Hex(username.trim().toLowerCase())}`, loginPolicy);
        }
      },
    });
    if (!config.rateLimit.enabled) return;

    app.addHook('onRequest', (request, reply, done) => {
      // Limited per key or user by the auth hook.
      if (requiresCredentials(request) && request.headers.authorization) return done();
      if (isExempt(request.url.split('?')[0])) return done();
      const limited = limit(reply, bucketFor(null, request.ip));
      if (limited) limited.then(() => done(), done);
      else done();
    });
  },
  { name: 'rate-limit', dependencies: ['infra'] },
);
