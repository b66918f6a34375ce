// A Run as a plain start with default settings would create it, for tests and benchmarks that put
// Runs in the database directly (no worker, no HTTP).
import type { NewRun } from '../../src/services/runs/runs.repository.js';

export function manualRunInput(organizationId: number, agentId: number, overrides: Partial<NewRun> = {}): NewRun {
  return {
    organizationId,
    agentId,
    agentVersion: 1,
    startedBy: 'test',
    startedByUserId: null,
    parallelism: 1,
    parallelMaxConcurrency: 1,
    parallelExport: 'Combined',
    proxyPoolId: null,
    logLevel: 'Info',
    logMode: 'Text',
    isExclusive: false,
    isWaitOnFailure: false,
    timeoutSeconds: null,
    inputParameters: null,
    ...overrides,
  };
}
