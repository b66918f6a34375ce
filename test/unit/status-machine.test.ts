// The Run status machine, transition by transition.
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_STATUSES,
  InvalidTransitionError,
  isActive,
  isTerminal,
  nextStatus,
  RunStatus,
  RUN_STATUS_NAMES,
  statusesAllowing,
  TERMINAL_STATUSES,
  type RunEvent,
} from '../../src/services/runs/status-machine.js';

const S = RunStatus;
const ALL = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

describe('RunStatus numbering (docs/api-contract.md)', () => {
  it('has the 13 integers of the API contract', () => {
    expect(RunStatus).toEqual({
      Invalid: 0,
      Running: 1,
      Exporting: 2,
      Starting: 3,
      Queuing: 4,
      Stopping: 5,
      Failure: 6,
      Failed: 7,
      Stopped: 8,
      Completed: 9,
      Success: 10,
      Skipped: 11,
      Waiting: 12,
    });
    expect(Object.keys(RUN_STATUS_NAMES).map(Number)).toEqual(ALL);
  });
});

describe('allowed transitions: every row of the transition table', () => {
  // [from, event, to, the table row]
  const rows: Array<[number, RunEvent, number, string]> = [
    [S.Queuing, { type: 'picked' }, S.Starting, '4 Queuing | a worker takes it | 3 Starting'],
    [S.Starting, { type: 'firstPage' }, S.Running, '3 Starting | first page requested | 1 Running'],
    [S.Running, { type: 'extracted' }, S.Exporting, '1 Running | extraction done | 2 Exporting'],
    [
      S.Exporting,
      { type: 'exported', errorCount: 0 },
      S.Success,
      '2 Exporting | files written, no errors | 10 Success',
    ],
    [
      S.Exporting,
      { type: 'exported', errorCount: 1 },
      S.Completed,
      '2 Exporting | files written, errorCount > 0 | 9 Completed',
    ],
    [
      S.Exporting,
      { type: 'exported', errorCount: 57 },
      S.Completed,
      '2 Exporting | files written, errorCount > 0 | 9 Completed',
    ],
    [
      S.Exporting,
      { type: 'exported', errorCount: 0, degraded: true },
      S.Completed,
      '2 Exporting | files written, nothing usable extracted | 9 Completed',
    ],
    // A Run whose export ends within 250 ms never reports Exporting, nor Running (both are reported after 250 ms).
    [S.Running, { type: 'exported', errorCount: 0 }, S.Success, '1 Running | files written within 250 ms | 10 Success'],
    [S.Starting, { type: 'exported', errorCount: 2 }, S.Completed, '3 Starting | files written, errors | 9 Completed'],
    [S.Running, { type: 'failed' }, S.Failed, '1 | unrecoverable error, timeout, worker lost | 7 Failed'],
    [S.Exporting, { type: 'failed' }, S.Failed, '2 | unrecoverable error, timeout, worker lost | 7 Failed'],
    [S.Starting, { type: 'failed' }, S.Failed, '3 | unrecoverable error, timeout, worker lost | 7 Failed'],
    [S.Failed, { type: 'retry' }, S.Waiting, '7 Failed | isWaitOnFailure and retries left | 12 Waiting'],
    [S.Waiting, { type: 'waitOver' }, S.Queuing, '12 Waiting | after the wait | 4 Queuing'],
    [S.Failed, { type: 'giveUp' }, S.Failure, '7 Failed | otherwise | 6 Failure'],
    [S.Running, { type: 'stop' }, S.Stopping, '1 | stop, or first kill | 5 Stopping'],
    [S.Exporting, { type: 'stop' }, S.Stopping, '2 | stop, or first kill | 5 Stopping'],
    [S.Starting, { type: 'stop' }, S.Stopping, '3 | stop, or first kill | 5 Stopping'],
    [S.Queuing, { type: 'stop' }, S.Stopping, '4 | stop, or first kill | 5 Stopping'],
    [S.Waiting, { type: 'stop' }, S.Stopping, '12 | stop, or first kill | 5 Stopping'],
    [S.Stopping, { type: 'stopped' }, S.Stopped, '5 Stopping | data so far exported | 8 Stopped'],
    [S.Stopping, { type: 'kill' }, S.Stopped, '5 Stopping | second kill | 8 Stopped'],
    [S.Running, { type: 'handBack' }, S.Queuing, '1 | planned worker shutdown (handed back) | 4 Queuing'],
    [S.Exporting, { type: 'handBack' }, S.Queuing, '2 | planned worker shutdown (handed back) | 4 Queuing'],
    [S.Starting, { type: 'handBack' }, S.Queuing, '3 | planned worker shutdown (handed back) | 4 Queuing'],
  ];
  for (const [from, event, to, row] of rows) {
    it(`${row}`, () => {
      expect(nextStatus(from, event)).toBe(to);
    });
  }

  it('a Run the engine finishes before any page reports goes Starting -> Exporting', () => {
    // The child may end (no page at all) before the first-page message was applied.
    expect(nextStatus(S.Starting, { type: 'extracted' })).toBe(S.Exporting);
  });
});

describe('disallowed transitions throw InvalidTransitionError', () => {
  const rows: Array<[number, RunEvent]> = [
    // A worker only takes a queued Run.
    [S.Running, { type: 'picked' }],
    [S.Waiting, { type: 'picked' }],
    [S.Success, { type: 'picked' }],
    [S.Queuing, { type: 'firstPage' }],
    [S.Running, { type: 'firstPage' }],
    [S.Queuing, { type: 'extracted' }],
    [S.Exporting, { type: 'extracted' }],
    [S.Queuing, { type: 'exported', errorCount: 0 }],
    [S.Stopping, { type: 'exported', errorCount: 0 }],
    [S.Success, { type: 'exported', errorCount: 0 }],
    // Failure is for Runs a worker executes (1/2/3); a stopping Run ends Stopped, never retried.
    [S.Queuing, { type: 'failed' }],
    [S.Waiting, { type: 'failed' }],
    [S.Stopping, { type: 'failed' }],
    [S.Failure, { type: 'failed' }],
    [S.Stopped, { type: 'failed' }],
    [S.Running, { type: 'retry' }],
    [S.Failure, { type: 'retry' }],
    [S.Running, { type: 'giveUp' }],
    [S.Queuing, { type: 'waitOver' }],
    [S.Failed, { type: 'waitOver' }],
    // Terminal statuses take no stop; Stopping does not stop again; Failed is on its way to 6 or 12.
    ...[S.Failure, S.Stopped, S.Completed, S.Success, S.Skipped, S.Invalid, S.Stopping, S.Failed].map(
      (s): [number, RunEvent] => [s, { type: 'stop' }],
    ),
    [S.Running, { type: 'stopped' }],
    [S.Stopped, { type: 'stopped' }],
    // Kill terminates only a Run that is already stopping (the first kill is a stop).
    [S.Running, { type: 'kill' }],
    [S.Queuing, { type: 'kill' }],
    [S.Stopped, { type: 'kill' }],
    // A stopping Run finishes its stop; only a Run a worker executes is handed back.
    [S.Stopping, { type: 'handBack' }],
    [S.Queuing, { type: 'handBack' }],
    [S.Success, { type: 'handBack' }],
  ];
  for (const [from, event] of rows) {
    it(`${RUN_STATUS_NAMES[from as keyof typeof RUN_STATUS_NAMES]} (${from}) on ${event.type}`, () => {
      let error: unknown;
      try {
        nextStatus(from, event);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidTransitionError);
      expect(error).toMatchObject({ from, event: event.type });
      expect((error as Error).message).toBe(
        `a Run in status ${RUN_STATUS_NAMES[from as keyof typeof RUN_STATUS_NAMES]} cannot take event ${event.type}`,
      );
    });
  }

  it('no event leads anywhere from a terminal status, except none', () => {
    const events: RunEvent[] = [
      { type: 'picked' },
      { type: 'firstPage' },
      { type: 'extracted' },
      { type: 'exported', errorCount: 0 },
      { type: 'failed' },
      { type: 'retry' },
      { type: 'giveUp' },
      { type: 'waitOver' },
      { type: 'stop' },
      { type: 'stopped' },
      { type: 'kill' },
    ];
    for (const terminal of [6, 8, 9, 10, 11, 0]) {
      for (const e of events)
        expect(() => nextStatus(terminal, e), `${terminal} ${e.type}`).toThrow(InvalidTransitionError);
    }
  });
});

describe('isTerminal and isActive for all 13 statuses', () => {
  const expected: Record<number, { terminal: boolean; active: boolean }> = {
    0: { terminal: false, active: false },
    1: { terminal: false, active: true },
    2: { terminal: false, active: true },
    3: { terminal: false, active: true },
    4: { terminal: false, active: true },
    5: { terminal: false, active: true },
    6: { terminal: true, active: false },
    7: { terminal: false, active: true },
    8: { terminal: true, active: false },
    9: { terminal: true, active: false },
    10: { terminal: true, active: false },
    11: { terminal: true, active: false },
    12: { terminal: false, active: true },
  };
  for (const status of ALL) {
    it(`${status} ${RUN_STATUS_NAMES[status as keyof typeof RUN_STATUS_NAMES]}`, () => {
      expect({ terminal: isTerminal(status), active: isActive(status) }).toEqual(expected[status]);
    });
  }

  it('lists match the status table: terminal 6, 8, 9, 10, 11; active everything else but 0', () => {
    expect([...TERMINAL_STATUSES].sort((a, b) => a - b)).toEqual([6, 8, 9, 10, 11]);
    expect([...ACTIVE_STATUSES].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 7, 12]);
    expect(isTerminal(13)).toBe(false);
    expect(isActive(13)).toBe(false);
    expect(isActive(-1)).toBe(false);
  });
});

describe('statusesAllowing (the WHERE of conditional updates)', () => {
  it('gives exactly the statuses each event may leave', () => {
    expect(statusesAllowing({ type: 'picked' })).toEqual([S.Queuing]);
    expect(statusesAllowing({ type: 'firstPage' })).toEqual([S.Starting]);
    expect(statusesAllowing({ type: 'extracted' }).sort((a, b) => a - b)).toEqual([S.Running, S.Starting]);
    expect(statusesAllowing({ type: 'exported', errorCount: 0 }).sort((a, b) => a - b)).toEqual([
      S.Running,
      S.Exporting,
      S.Starting,
    ]);
    expect(statusesAllowing({ type: 'exported', errorCount: 3 }).sort((a, b) => a - b)).toEqual([
      S.Running,
      S.Exporting,
      S.Starting,
    ]);
    expect(statusesAllowing({ type: 'failed' }).sort((a, b) => a - b)).toEqual([S.Running, S.Exporting, S.Starting]);
    expect(statusesAllowing({ type: 'retry' })).toEqual([S.Failed]);
    expect(statusesAllowing({ type: 'giveUp' })).toEqual([S.Failed]);
    expect(statusesAllowing({ type: 'waitOver' })).toEqual([S.Waiting]);
    expect(statusesAllowing({ type: 'stop' }).sort((a, b) => a - b)).toEqual([
      S.Running,
      S.Exporting,
      S.Starting,
      S.Queuing,
      S.Waiting,
    ]);
    expect(statusesAllowing({ type: 'stopped' })).toEqual([S.Stopping]);
    expect(statusesAllowing({ type: 'kill' })).toEqual([S.Stopping]);
  });

  it('every status an event allows leads to the same next status (one UPDATE serves them all)', () => {
    const events: RunEvent[] = [
      { type: 'picked' },
      { type: 'firstPage' },
      { type: 'extracted' },
      { type: 'exported', errorCount: 0 },
      { type: 'exported', errorCount: 2 },
      { type: 'failed' },
      { type: 'retry' },
      { type: 'giveUp' },
      { type: 'waitOver' },
      { type: 'stop' },
      { type: 'stopped' },
      { type: 'kill' },
    ];
    for (const e of events) {
      const targets = new Set(statusesAllowing(e).map((s) => nextStatus(s, e)));
      expect(targets.size, e.type).toBe(1);
    }
  });
});
