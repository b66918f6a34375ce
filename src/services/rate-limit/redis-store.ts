// Budgets and waiting lines in Redis, shared by every API instance: one Lua script does each step
// atomically (no read-then-write across round trips) on Redis's own clock, so instances whose
// clocks differ still agree. It is rules.ts's algorithm; keep the two in step.
//
// Per bucket, under one hash tag (Redis Cluster keeps them on one node):
//   grants  sorted set ticket -> grant time (ms); entries older than the window are dropped
//   line    sorted set ticket -> arrival number (from `seq`), the FIFO line of waiters
//   leases  sorted set ticket -> lease end (ms); a waiter renews it each time it polls, so the
//           place of a waiter whose instance died is given back when its lease ends
import type { Redis } from 'ioredis';
import type { Decision, LimiterStore, LimitPolicy } from './rules.js';

const TAKE = `
local grants, line, leases, seq = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local ticket = ARGV[1]
local max = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local queue = tonumber(ARGV[4])
local leaseMs = tonumber(ARGV[5])
local arriving = ARGV[6] == '1'
local want = tonumber(ARGV[7])
local hold = tonumber(ARGV[8])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

redis.call('ZREMRANGEBYSCORE', grants, '-inf', now - window)
local lapsed = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
for _, gone in ipairs(lapsed) do redis.call('ZREM', line, gone) end
if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', leases, '-inf', now) end

local used = redis.call('ZCARD', grants)
local waiting = redis.call('ZCARD', line)
local free = max - used
local known = false
local rank = waiting
if not arriving then
  local r = redis.call('ZRANK', line, ticket)
  if r then known = true; rank = r end
end

if rank < free then
  -- A batch of slots for the instance to hand out itself, only while nobody waits and at most a
  -- quarter of what is free. Each slot is held from now: a grant time in the future would make a
  -- refused client wait longer than a window. A slot handed out at the end of the hold
  -- (at most 1 s, 1/60 of the window) therefore counts for the window less that hold.
  local n = 1
  if waiting == 0 and want > 1 then n = math.max(1, math.min(want, math.floor(free / 4))) end
  if n == 1 then
    redis.call('ZADD', grants, now, ticket)
  else
    local args = {}
    for i = 0, n - 1 do
      args[#args + 1] = now
      args[#args + 1] = ticket .. ':' .. i
    end
    redis.call('ZADD', grants, unpack(args))
  end
  redis.call('PEXPIRE', grants, window + hold)
  if known then
    redis.call('ZREM', line, ticket)
    redis.call('ZREM', leases, ticket)
    waiting = waiting - 1
  end
  return {1, math.max(0, free - n - waiting), n}
end

local function servedAt(r)
  local i = r % max
  local base = now
  if i >= free then
    local g = redis.call('ZRANGE', grants, i - free, i - free, 'WITHSCORES')
    base = tonumber(g[2]) + window
  end
  return base + math.floor(r / max) * window
end

if not known then
  if waiting >= queue then return {3, servedAt(rank) - now} end
  redis.call('ZADD', line, redis.call('INCR', seq), ticket)
end
redis.call('ZADD', leases, now + leaseMs, ticket)
local ttl = window + leaseMs
redis.call('PEXPIRE', line, ttl)
redis.call('PEXPIRE', leases, ttl)
redis.call('PEXPIRE', seq, ttl)
return {2, rank, servedAt(rank) - now}
`;

// The slots of a batch that were not used are given back.
const RELEASE = `
local members = {}
for i = tonumber(ARGV[2]), tonumber(ARGV[3]) - 1 do members[#members + 1] = ARGV[1] .. ':' .. i end
if #members > 0 then redis.call('ZREM', KEYS[1], unpack(members)) end
return #members
`;

const LEAVE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 0
`;

/** The Redis keys of one bucket (exported so tests can watch a line form). */
export function bucketKeys(prefix: string, bucket: string) {
  const base = `${prefix}:rl:{${bucket}}`;
  return { grants: `${base}:grants`, line: `${base}:line`, leases: `${base}:leases`, seq: `${base}:seq` };
}

type ScriptCall = (...args: Array<string | number>) => Promise<number[]>;

export function createRedisStore(redis: Redis, opts: { prefix: string; leaseMs: number }): LimiterStore {
  redis.defineCommand('rateLimitTake', { numberOfKeys: 4, lua: TAKE });
  redis.defineCommand('rateLimitLeave', { numberOfKeys: 2, lua: LEAVE });
  redis.defineCommand('rateLimitRelease', { numberOfKeys: 1, lua: RELEASE });
  const commands = redis as unknown as {
    rateLimitTake: ScriptCall;
    rateLimitLeave: ScriptCall;
    rateLimitRelease: ScriptCall;
  };

  return {
    async take(
      bucket: string,
      policy: LimitPolicy,
      ticket: string,
      arriving: boolean,
      batch?: { want: number; holdMs: number },
    ): Promise<Decision> {
      const k = bucketKeys(opts.prefix, bucket);
      const r = await commands.rateLimitTake(
        k.grants,
        k.line,
        k.leases,
        k.seq,
        ticket,
        policy.max,
        policy.windowMs,
        policy.queue,
        opts.leaseMs,
        arriving ? 1 : 0,
        batch?.want ?? 1,
        batch?.holdMs ?? 0,
      );
      if (r[0] === 1)
        return r[2] > 1 ? { kind: 'granted', remaining: r[1], slots: r[2] } : { kind: 'granted', remaining: r[1] };
      if (r[0] === 2) return { kind: 'queued', position: r[1], waitMs: r[2] };
      return { kind: 'rejected', retryAfterMs: r[1] };
    },
    async release(bucket: string, ticket: string, from: number, to: number): Promise<void> {
      await commands.rateLimitRelease(bucketKeys(opts.prefix, bucket).grants, ticket, from, to);
    },
    async leave(bucket: string, ticket: string): Promise<void> {
      const k = bucketKeys(opts.prefix, bucket);
      await commands.rateLimitLeave(k.line, k.leases, ticket);
    },
  };
}
