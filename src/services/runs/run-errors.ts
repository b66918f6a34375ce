// Why a Run failed or ended early, as a code set where it happens plus the figures that explain it
// (stored on the Run as errorCode and errorParams). Its errorMessage is built from them here, and only
// here, so a message can be reworded without changing what diagnoses, webhooks or clients decide on.
// The engine's codes are part of the set; the service adds the failures only it can see. A failure the
// service does not know (a bug, the database, the file system) is logged with the Run id and the Run
// says where to find it, never the exception's own text.
import { engineFailureMessage, EngineFailureCode, type EngineFailure, type FailureParams } from '../../engine/index.js';

export { EngineFailureCode, type FailureParams } from '../../engine/index.js';

export const RunFailureCode = {
  ...EngineFailureCode,
  /** The worker executing the Run stopped (crash, kill, lost machine) or stopped sending heartbeats. */
  WorkerLost: 'WORKER_LOST',
  /** The Run's own process ended without a result (exit code in the parameters). */
  RunProcessCrashed: 'RUN_PROCESS_CRASHED',
  /** The Agent, or the definition version the Run was started with, was deleted before it executed. */
  AgentGone: 'AGENT_GONE',
  /** The proxy pool the Run was started with was deleted before it executed. */
  ProxyPoolGone: 'PROXY_POOL_GONE',
  /** A user stopped the Run (how it ended is in the `when` parameter). Status 5 Stopped. */
  StoppedByUser: 'STOPPED_BY_USER',
  /** A user killed the Run: its process was terminated at once. Status 5 Stopped. */
  KilledByUser: 'KILLED_BY_USER',
} as const;
export type RunFailureCode = (typeof RunFailureCode)[keyof typeof RunFailureCode];

export interface RunFailure {
  code: RunFailureCode;
  params: FailureParams;
}

/** How a stopped Run ended (STOPPED_BY_USER's `when`). */
export type StopOutcome = 'exported' | 'beforeStart' | 'workerLost' | 'workerShutDown' | 'unclean';

/** A reason a Run cannot proceed that its owner can act on. */
export class RunSetupError extends Error {
  constructor(readonly failure: RunFailure) {
    super(runFailureMessage(failure));
  }
}

export const internalRunFailure = (runId: number): RunFailure => ({
  code: RunFailureCode.InternalError,
  params: { runId },
});

const STOPPED: Record<StopOutcome, string> = {
  exported: 'Stopped by user; the data extracted so far was exported.',
  beforeStart: 'Stopped by user before it started.',
  workerLost: 'Stopped; the worker executing the Run was lost before it finished stopping.',
  workerShutDown: 'Stopped; the worker shut down before the data could be exported.',
  unclean: 'Stopped by user; it did not finish stopping cleanly',
};

const SERVICE_MESSAGES: Partial<Record<RunFailureCode, (p: FailureParams) => string>> = {
  WORKER_LOST: (p) =>
    `The worker executing this Run was lost (${p.reason === 'heartbeat' ? 'no heartbeat' : 'process ended or stalled'}); the Run did not finish.`,
  RUN_PROCESS_CRASHED: (p) => `The run process ended unexpectedly (exit code ${p.exitCode}).`,
  AGENT_GONE: () => 'The Agent or its definition no longer exists.',
  PROXY_POOL_GONE: (p) => `Proxy pool ${p.proxyPoolId} no longer exists.`,
  STOPPED_BY_USER: (p) => {
    const text = STOPPED[p.when as StopOutcome] ?? STOPPED.exported;
    return p.cause !== undefined ? `${text}: ${p.cause}` : text;
  },
  KILLED_BY_USER: () => 'Killed by user: the run process was terminated immediately; data not yet exported was lost.',
};

/** The one place a Run's failure becomes its errorMessage. */
export function runFailureMessage(f: RunFailure): string {
  if (f.code === RunFailureCode.InternalError && f.params.runId !== undefined)
    return `The Run failed because of an internal error; the operator can find the details in the worker log under run ${f.params.runId}.`;
  if (f.code === RunFailureCode.RunTimeout && f.params.terminated !== undefined)
    return `The Run exceeded its timeout of ${f.params.seconds} s and was terminated.`;
  const own = SERVICE_MESSAGES[f.code];
  return own ? own(f.params) : engineFailureMessage(f as EngineFailure);
}

/** A stop's failure; `cause`, for a stop cut short by a failure, names that failure. */
export function stoppedBy(when: StopOutcome, cause?: RunFailure): RunFailure {
  const params: FailureParams = { when };
  if (cause) {
    params.causeCode = cause.code;
    params.cause = runFailureMessage(cause);
  }
  return { code: RunFailureCode.StoppedByUser, params };
}

/** The columns a Run's failure is stored in. */
export function failureColumns(f: RunFailure | null) {
  return f === null
    ? { errorCode: null, errorParams: null, errorMessage: null }
    : { errorCode: f.code, errorParams: f.params, errorMessage: runFailureMessage(f) };
}
