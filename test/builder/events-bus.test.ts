// The Builder's long-poll waiters in one API process: closing answers every waiting request at once,
// including one whose subscription was still being confirmed when the release ran.
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { createEventsSubscriber } from '../../src/services/builder/events-bus.js';
import { clearRedisPrefix } from '../helpers/app.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `cxs-test-bus-${randomUUID().slice(0, 8)}`;
afterAll(() => clearRedisPrefix(REDIS_URL, prefix));

it('answers a waiter registered while the release runs, not after its timeout', async () => {
  const subscriber = createEventsSubscriber(REDIS_URL, prefix, () => {});
  try {
    // The waiter is asked for before the subscription is confirmed; the release runs in between.
    const asked = subscriber.waiter('session-1', 20_000);
    subscriber.releaseAll();
    const { wait } = await asked;
    const answer = await Promise.race([wait, new Promise((r) => setTimeout(() => r('held'), 5_000))]);
    expect(answer).toBe(true);
  } finally {
    await subscriber.close();
  }
});
