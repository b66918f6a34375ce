// Which failures count as "a dependency is unavailable" (503) or "not migrated", and the monitor
// that logs a dependency's loss and return once each.
import { describe, expect, it } from 'vitest';
import {
  isDatabaseUnreachable,
  isPoolWaitTimeout,
  isRedisUnavailable,
  isSchemaMissing,
} from '../../src/db/failures.js';
import { isDatabaseBusy } from '../../src/db/prisma.js';
import { createDependencyMonitor } from '../../src/lib/dependencies.js';

const prismaError = (code: string, cause: Record<string, unknown>) =>
  Object.assign(new Error('Invalid `prisma.user.findFirst()` invocation:\n\nsomething'), {
    code,
    meta: { driverAdapterError: { cause } },
  });

describe('failure classification', () => {
  it('recognises PostgreSQL being unreachable, restarting or refusing us', () => {
    expect(isDatabaseUnreachable(prismaError('P1001', { kind: 'DatabaseNotReachable' }))).toBe(true);
    expect(isDatabaseUnreachable(prismaError('P2010', { kind: 'ConnectionClosed' }))).toBe(true);
    expect(isDatabaseUnreachable(prismaError('P2010', { kind: 'postgres', code: '57P01' }))).toBe(true);
    expect(isDatabaseUnreachable(new Error('Connection terminated due to connection timeout'))).toBe(true);
    expect(isDatabaseUnreachable(prismaError('P2002', { kind: 'UniqueConstraintViolation' }))).toBe(false);
    expect(isDatabaseUnreachable(new Error('boom'))).toBe(false);
  });

  it('counts a wait in line for a pooled connection that ran out as a busy database, not an unreachable one', () => {
    const poolWait = new Error('timeout exceeded when trying to connect');
    expect(isPoolWaitTimeout(poolWait)).toBe(true);
    expect(isDatabaseBusy(poolWait)).toBe(true);
    expect(isDatabaseUnreachable(poolWait)).toBe(false);
    expect(isDatabaseBusy(new Error('Connection terminated unexpectedly'))).toBe(false);
  });

  it('recognises a missing table', () => {
    expect(isSchemaMissing(prismaError('P2021', { kind: 'TableDoesNotExist' }))).toBe(true);
    expect(isSchemaMissing(prismaError('P2010', { kind: 'TableDoesNotExist' }))).toBe(true);
    expect(isSchemaMissing(prismaError('P2025', {}))).toBe(false);
  });

  it('recognises Redis being unreachable', () => {
    expect(
      isRedisUnavailable(
        Object.assign(new Error('Reached the max retries per request limit (which is 2).'), {
          name: 'MaxRetriesPerRequestError',
        }),
      ),
    ).toBe(true);
    expect(isRedisUnavailable(new Error('Connection is closed.'))).toBe(true);
    expect(
      isRedisUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isRedisUnavailable(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(
      false,
    );
    expect(isRedisUnavailable(prismaError('P1001', { kind: 'DatabaseNotReachable' }))).toBe(false);
  });
});

describe('dependency monitor', () => {
  it('logs a loss once and the return once, found by probing while down', async () => {
    const lines: Array<[string, string]> = [];
    const log = {
      warn: (_o: unknown, m: string) => lines.push(['warn', m]),
      info: (_o: unknown, m: string) => lines.push(['info', m]),
    };
    let reachable = false;
    let probes = 0;
    let back: () => void = () => {};
    const returned = new Promise<void>((r) => (back = r));
    const monitor = createDependencyMonitor({
      log: log as never,
      probeIntervalMs: 5,
      probes: {
        postgres: async () => {
          probes++;
          if (!reachable) throw new Error('down');
          back();
        },
        redis: async () => {},
      },
    });
    for (let i = 0; i < 5; i++) monitor.down('postgres', new Error('connect ECONNREFUSED'));
    expect(monitor.isDown('postgres')).toBe(true);
    expect(lines).toEqual([['warn', 'PostgreSQL is unreachable']]);
    reachable = true;
    await returned;
    await new Promise((r) => setImmediate(r));
    expect(monitor.anyDown()).toBe(false);
    expect(lines).toEqual([
      ['warn', 'PostgreSQL is unreachable'],
      ['info', 'PostgreSQL is reachable again'],
    ]);
    monitor.up('postgres');
    expect(lines).toHaveLength(2);
    expect(probes).toBeGreaterThan(0);
    monitor.close();
  });
});
