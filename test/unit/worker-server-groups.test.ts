// WORKER_SERVER_GROUPS: which Run queues a worker consumes (docs/operations.md).
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { runQueueName } from '../../src/queues/queues.js';

const load = (value?: string) =>
  loadConfig(
    {
      ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      ...(value === undefined ? {} : { WORKER_SERVER_GROUPS: value }),
    },
    () => {},
  ).schedules.workerServerGroups;

describe('WORKER_SERVER_GROUPS', () => {
  it('defaults to the default queue only', () => {
    expect(load()).toEqual({ default: true, groups: [] });
    expect(load('')).toEqual({ default: true, groups: [] });
  });

  it('lists server groups, with or without the default queue', () => {
    expect(load('3')).toEqual({ default: false, groups: [3] });
    expect(load(' Default , 7,3,7 ')).toEqual({ default: true, groups: [7, 3] });
  });

  it('refuses anything else', () => {
    for (const bad of ['0', '-1', 'x', '3,,a', ',']) expect(() => load(bad), bad).toThrow(ConfigError);
  });

  it('names the queues: runs, runs-g<id>', () => {
    expect(runQueueName(null)).toBe('runs');
    expect(runQueueName(7)).toBe('runs-g7');
  });
});
