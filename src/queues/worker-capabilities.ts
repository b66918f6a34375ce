// What the workers can do, announced in Redis with each heartbeat and read by the API before it
// accepts a Run that needs it (a browser Run while no worker has Chromium is refused at start).
import type { Redis } from 'ioredis';

/** As long as a heartbeat: three missed beats and the capability is gone. */
const CAPABILITY_TTL_SECONDS = 15;

/** Set with each beat by a worker that has Chromium: the API refuses browser Runs while no worker has it. */
export function browserCapabilityKey(prefix: string): string {
  return `${prefix}:worker-capability:browser`;
}

export async function announceBrowser(redis: Pick<Redis, 'set'>, prefix: string): Promise<void> {
  await redis.set(browserCapabilityKey(prefix), '1', 'EX', CAPABILITY_TTL_SECONDS);
}

export async function anyWorkerCanRender(redis: Pick<Redis, 'exists'>, prefix: string): Promise<boolean> {
  return (await redis.exists(browserCapabilityKey(prefix))) === 1;
}
