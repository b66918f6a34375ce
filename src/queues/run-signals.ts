// Run signals over Redis pub/sub, so nobody polls the database for them: stop and kill reach the
// worker executing the Run, and a Run's end reaches the API request waiting for it (synchronous
// start). Signals are hints with a database fallback: a worker also reads the control state with each
// heartbeat, and a waiting request re-reads the Run every few seconds, so a signal lost while Redis
// was away delays an action, never loses it.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export type RunSignalKind = 'stop' | 'kill' | 'ended';

/** Signals about a Run between API instances and workers (implemented over Redis pub/sub). */
export interface RunSignals {
  /** Best effort: never throws (the database carries the same state). */
  publish(runId: number, kind: RunSignalKind): Promise<void>;
  /** Calls `fn` for the Run's signals until closed; `ready` resolves once signals are being received (or cannot be). */
  listen(runId: number, fn: (kind: RunSignalKind) => void): { ready: Promise<void>; close(): void };
}

export function createRunSignals(
  redisUrl: string,
  prefix: string,
  opts: { timeoutMs: number; log: Pick<Logger, 'warn'> },
): RunSignals & { close(): Promise<void> } {
  const channel = `${prefix}:runs:signals`;
  // Fail fast: a signal is never worth waiting for (the database carries the same state).
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: opts.timeoutMs,
    commandTimeout: opts.timeoutMs,
    lazyConnect: true,
  };
  let publisher: Redis | null = null;
  let subscriber: Redis | null = null;
  let subscribed: Promise<void> | null = null;
  const listeners = new Map<number, Set<(kind: RunSignalKind) => void>>();

  const connection = (role: string) => {
    const r = new Redis(
      redisUrl,
      role === 'subscriber' ? { ...options, enableOfflineQueue: true, commandTimeout: undefined } : options,
    );
    r.on('error', (err) => opts.log.warn({ err: { message: err.message }, role }, 'run signals: redis error'));
    return r;
  };

  function subscribe(): Promise<void> {
    if (!subscriber) {
      subscriber = connection('subscriber');
      subscriber.on('message', (_channel: string, message: string) => {
        let signal: { runId?: unknown; kind?: unknown };
        try {
          signal = JSON.parse(message) as typeof signal;
        } catch {
          return;
        }
        if (
          typeof signal.runId !== 'number' ||
          (signal.kind !== 'stop' && signal.kind !== 'kill' && signal.kind !== 'ended')
        )
          return;
        for (const fn of listeners.get(signal.runId) ?? []) fn(signal.kind);
      });
    }
    // ioredis subscribes again by itself after a reconnection.
    subscribed ??= subscriber.subscribe(channel).then(
      () => undefined,
      (err) => {
        subscribed = null;
        throw err;
      },
    );
    return subscribed;
  }

  return {
    async publish(runId, kind) {
      publisher ??= connection('publisher');
      try {
        if (publisher.status === 'wait') await publisher.connect();
        await publisher.publish(channel, JSON.stringify({ runId, kind }));
      } catch (err) {
        opts.log.warn(
          { runId, kind, err: { message: (err as Error).message } },
          'run signal not published; the database fallback carries it',
        );
      }
    },

    listen(runId, fn) {
      let set = listeners.get(runId);
      if (!set) listeners.set(runId, (set = new Set()));
      set.add(fn);
      const ready = subscribe().catch((err) =>
        opts.log.warn(
          { err: { message: (err as Error).message } },
          'run signals: not subscribed; falling back to the database',
        ),
      );
      return {
        ready,
        close: () => {
          set.delete(fn);
          if (set.size === 0) listeners.delete(runId);
        },
      };
    },

    async close() {
      await Promise.all([publisher, subscriber].flatMap((r) => (r ? [r.quit().catch(() => r.disconnect())] : [])));
    },
  };
}
