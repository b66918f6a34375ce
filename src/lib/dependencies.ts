// Knows whether PostgreSQL and Redis are reachable, as seen by this process, and says so in the log
// once per change (lost, then back), never once per failed request or reconnect attempt. While a
// dependency is down it is probed every few seconds, so its return is noticed without traffic.
import type { Logger } from 'pino';

export type DependencyName = 'postgres' | 'redis';

export interface DependencyMonitor {
  /** Something failed because of `name`: logged if it was up until now. */
  down(name: DependencyName, cause: unknown): void;
  /** `name` answered: logged if it was down until now. */
  up(name: DependencyName): void;
  isDown(name: DependencyName): boolean;
  anyDown(): boolean;
  close(): void;
}

const LABEL: Record<DependencyName, string> = { postgres: 'PostgreSQL', redis: 'Redis' };

export function createDependencyMonitor(opts: {
  log: Pick<Logger, 'warn' | 'info'>;
  probes: Record<DependencyName, () => Promise<unknown>>;
  probeIntervalMs?: number;
}): DependencyMonitor {
  const { log, probes } = opts;
  const interval = opts.probeIntervalMs ?? 2_000;
  const downSince = new Map<DependencyName, number>();
  const timers = new Map<DependencyName, NodeJS.Timeout>();
  let closed = false;

  const monitor: DependencyMonitor = {
    down(name, cause) {
      if (closed || downSince.has(name)) return;
      downSince.set(name, Date.now());
      log.warn({ dependency: name, cause: describe(cause) }, `${LABEL[name]} is unreachable`);
      const timer = setInterval(() => {
        probes[name]().then(
          () => monitor.up(name),
          () => {},
        );
      }, interval);
      // A probe never keeps the process alive (shutdown must not wait for it).
      timer.unref();
      timers.set(name, timer);
    },
    up(name) {
      const since = downSince.get(name);
      if (since === undefined) return;
      downSince.delete(name);
      clearInterval(timers.get(name));
      timers.delete(name);
      log.info(
        { dependency: name, downSeconds: Math.round((Date.now() - since) / 1000) },
        `${LABEL[name]} is reachable again`,
      );
    },
    isDown: (name) => downSince.has(name),
    anyDown: () => downSince.size > 0,
    close() {
      closed = true;
      for (const t of timers.values()) clearInterval(t);
      timers.clear();
    },
  };
  return monitor;
}

/** The cause as the log shows it: a message and code, never a connection string or a stack. */
function describe(cause: unknown): { message: string; code?: string } {
  const err = cause as {
    message?: unknown;
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: string } } };
  } | null;
  const kind = err?.meta?.driverAdapterError?.cause?.kind;
  const message =
    typeof err?.message === 'string' ? (err.message.split('\n').filter(Boolean).pop() ?? '') : String(cause);
  const code = typeof err?.code === 'string' ? err.code : kind;
  return code ? { message, code } : { message };
}
