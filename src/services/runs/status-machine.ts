// The Run status machine (docs/api-contract.md §4.1 and §4.2). Every status change goes through `nextStatus`.
import { RunStatus, type RunStatusValue } from '../../schemas/run-status.js';

export { RunStatus, type RunStatusValue };

/** Each status's name, by value (from RunStatus). */
export const RUN_STATUS_NAMES = Object.fromEntries(Object.entries(RunStatus).map(([k, v]) => [v, k])) as Record<
  RunStatusValue,
  keyof typeof RunStatus
>;

export const TERMINAL_STATUSES: readonly RunStatusValue[] = [
  RunStatus.Failure,
  RunStatus.Stopped,
  RunStatus.Completed,
  RunStatus.Success,
  RunStatus.Skipped,
];
export const ACTIVE_STATUSES: readonly RunStatusValue[] = [
  RunStatus.Running,
  RunStatus.Exporting,
  RunStatus.Starting,
  RunStatus.Queuing,
  RunStatus.Stopping,
  RunStatus.Failed,
  RunStatus.Waiting,
];
/** Active and held by a worker: a worker heartbeat keeps these alive. */
export const EXECUTING_STATUSES: readonly RunStatusValue[] = [
  RunStatus.Running,
  RunStatus.Exporting,
  RunStatus.Starting,
  RunStatus.Stopping,
];

export function isTerminal(status: number): boolean {
  return (TERMINAL_STATUSES as readonly number[]).includes(status);
}

export function isActive(status: number): boolean {
  return (ACTIVE_STATUSES as readonly number[]).includes(status);
}

export type RunEvent =
  | { type: 'picked' } // a worker takes it
  | { type: 'firstPage' }
  | { type: 'extracted' } // extraction done, exporting begins
  | { type: 'exported'; errorCount: number; degraded?: boolean } // degraded: nothing usable was extracted
  | { type: 'failed' } // unrecoverable error, timeout, worker lost
  | { type: 'retry' } // isWaitOnFailure with retries left
  | { type: 'giveUp' } // Failed with no retry
  | { type: 'waitOver' } // Waiting -> Queuing
  | { type: 'stop' } // stop, or first kill
  | { type: 'stopped' } // the worker finished stopping (data so far exported)
  | { type: 'kill' } // second kill while Stopping
  | { type: 'handBack' }; // the worker shuts down (planned) before the Run could finish: queued again

export class InvalidTransitionError extends Error {
  constructor(
    readonly from: number,
    readonly event: RunEvent['type'],
  ) {
    super(`a Run in status ${RUN_STATUS_NAMES[from as RunStatusValue] ?? from} cannot take event ${event}`);
  }
}

/** The status a Run moves to on `event`, or an InvalidTransitionError. */
export function nextStatus(from: number, event: RunEvent): RunStatusValue {
  const S = RunStatus;
  switch (event.type) {
    case 'picked':
      if (from === S.Queuing) return S.Starting;
      break;
    case 'firstPage':
      if (from === S.Starting) return S.Running;
      break;
    case 'extracted':
      if (from === S.Running || from === S.Starting) return S.Exporting;
      break;
    case 'exported':
      // From Starting or Running too: a Run whose export ends within 250 ms never reports Exporting (it is reported after 250 ms).
      if (from === S.Exporting || from === S.Running || from === S.Starting)
        return event.errorCount > 0 || event.degraded ? S.Completed : S.Success;
      break;
    case 'failed':
      // Not from Stopping: a Run being stopped ends Stopped (never Failed, never retried).
      if (from === S.Running || from === S.Exporting || from === S.Starting) return S.Failed;
      break;
    case 'retry':
      if (from === S.Failed) return S.Waiting;
      break;
    case 'giveUp':
      if (from === S.Failed) return S.Failure;
      break;
    case 'waitOver':
      if (from === S.Waiting) return S.Queuing;
      break;
    case 'stop':
      if (from === S.Running || from === S.Exporting || from === S.Starting || from === S.Queuing || from === S.Waiting)
        return S.Stopping;
      break;
    case 'stopped':
      if (from === S.Stopping) return S.Stopped;
      break;
    case 'kill':
      if (from === S.Stopping) return S.Stopped;
      break;
    case 'handBack':
      if (from === S.Running || from === S.Exporting || from === S.Starting) return S.Queuing;
      break;
  }
  throw new InvalidTransitionError(from, event.type);
}

// By event type (the allowed statuses do not depend on an event's figures): every status change asks,
// and working it out throws an InvalidTransitionError for most statuses.
const allowing = new Map<RunEvent['type'], RunStatusValue[]>();

/** The statuses from which `event` is allowed (for conditional updates in SQL). */
export function statusesAllowing(event: RunEvent): RunStatusValue[] {
  let allowed = allowing.get(event.type);
  if (!allowed) allowing.set(event.type, (allowed = computeAllowing(event)));
  return allowed;
}

function computeAllowing(event: RunEvent): RunStatusValue[] {
  return (Object.values(RunStatus) as RunStatusValue[]).filter((s) => {
    try {
      nextStatus(s, event);
      return true;
    } catch {
      return false;
    }
  });
}
