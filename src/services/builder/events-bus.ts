// Wakes long polls and running builder jobs when a session changes: the writer publishes the
// session id on one Redis channel after committing; each process keeps one subscriber connection and
// resolves the waiters of that session. Nothing is polled.
import { Redis } from 'ioredis';

export interface SessionSignal {
  sessionId: string;
  status: string;
}

export function builderChannel(prefix: string): string {
  return `${prefix}:builder:sessions`;
}

export function createEventsPublisher(redis: Pick<Redis, 'publish'>, prefix: string) {
  const channel = builderChannel(prefix);
  return {
    async publish(signal: SessionSignal): Promise<void> {
      await redis.publish(channel, JSON.stringify(signal));
    },
  };
}
export type EventsPublisher = ReturnType<typeof createEventsPublisher>;

/**
 * One subscriber connection, opened on first use. `wait` resolves true when the session is signalled
 * and false when the time is up or `signal` aborts; `listen` calls back on every signal.
 */
export function createEventsSubscriber(redisUrl: string, prefix: string, onError: (err: Error) => void = () => {}) {
  const channel = builderChannel(prefix);
  const waiters = new Map<string, Set<(s: SessionSignal) => void>>();
  const listeners = new Set<(s: SessionSignal) => void>();
  let connection: Redis | null = null;
  let ready: Promise<unknown> | null = null;
  // Set once the process is closing: a waiter registered after releaseAll (its subscription was being
  // confirmed while the release ran) is answered at once too.
  let releasing = false;

  function connect(): Promise<unknown> {
    if (ready) return ready;
    connection = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    connection.on('error', onError);
    connection.on('message', (_channel: string, text: string) => {
      let signal: SessionSignal;
      try {
        signal = JSON.parse(text) as SessionSignal;
      } catch {
        return;
      }
      for (const waiter of waiters.get(signal.sessionId) ?? []) waiter(signal);
      for (const listener of listeners) listener(signal);
    });
    ready = connection.subscribe(channel);
    return ready;
  }

  return {
    /** Registers first and returns the promise, so a signal between "read" and "wait" is not lost. */
    async waiter(
      sessionId: string,
      timeoutMs: number,
      signal?: AbortSignal,
    ): Promise<{ wait: Promise<boolean>; cancel: () => void }> {
      await connect();
      if (releasing) return { wait: Promise.resolve(true), cancel: () => {} };
      let resolve: (v: boolean) => void = () => {};
      const wait = new Promise<boolean>((r) => (resolve = r));
      const set = waiters.get(sessionId) ?? new Set();
      waiters.set(sessionId, set);
      const done = (value: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        set.delete(onSignal);
        if (set.size === 0) waiters.delete(sessionId);
        resolve(value);
      };
      const onSignal = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      set.add(onSignal);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) done(false);
      return { wait, cancel: () => done(false) };
    },

    async listen(listener: (s: SessionSignal) => void): Promise<() => void> {
      await connect();
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** Answers every waiting long poll now (a closing API process must not hold requests for 30 s). */
    releaseAll(): void {
      releasing = true;
      for (const set of [...waiters.values()])
        for (const waiter of [...set]) waiter({ sessionId: '', status: 'closing' });
    },

    async close(): Promise<void> {
      const c = connection;
      connection = null;
      ready = null;
      if (c) await c.quit().catch(() => c.disconnect());
    },
  };
}
export type EventsSubscriber = ReturnType<typeof createEventsSubscriber>;
