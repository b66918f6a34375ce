// The worker's heartbeat: every few seconds, while PostgreSQL and Redis both answer, the worker
// writes a key with a short expiry. `node dist/worker-health.js` (the container health check) reads
// it back: a missing key means this worker has lost a dependency or stopped working.
import os from 'node:os';
import type { Redis } from 'ioredis';

export const HEARTBEAT_INTERVAL_MS = 5_000;
/** Three missed beats and the worker counts as unhealthy. */
export const HEARTBEAT_TTL_SECONDS = 15;

/** One key per worker host (a container's hostname is its id), so replicas do not cover for each other. */
export function heartbeatKey(prefix: string, host = os.hostname()): string {
  return `${prefix}:worker-heartbeat:${host}`;
}

export async function writeHeartbeat(redis: Pick<Redis, 'set'>, prefix: string, at: Date): Promise<void> {
  await redis.set(
    heartbeatKey(prefix),
    JSON.stringify({ at: at.toISOString(), pid: process.pid }),
    'EX',
    HEARTBEAT_TTL_SECONDS,
  );
}

export async function readHeartbeat(
  redis: Pick<Redis, 'get'>,
  prefix: string,
): Promise<{ at: string; pid: number } | null> {
  const raw = await redis.get(heartbeatKey(prefix));
  return raw ? (JSON.parse(raw) as { at: string; pid: number }) : null;
}
