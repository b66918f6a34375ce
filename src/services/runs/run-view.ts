// The Run as the API shows it (GET .../status) and the shapes of the runs service's inputs and
// results; request and response shapes come from the schemas (src/schemas/runs.ts).
import type { OrgRunsQueryInput, RunListItemModel, RunModel, StartRunInput } from '../../schemas/runs.js';
import type { RunRow } from './runs.repository.js';
import { isActive, type RunStatusValue } from './status-machine.js';

// Request and response shapes come from the schemas (src/schemas/runs.ts), the one source of each.
export type StartOptions = StartRunInput;
export type RunView = RunModel;

export type OrgRunsQuery = OrgRunsQueryInput;

export function toRunView(r: RunRow): RunView {
  return {
    id: r.id,
    configId: r.agentId,
    organizationId: r.organizationId,
    status: r.status as RunStatusValue,
    startTime: r.startTime,
    endTime: r.endTime,
    startedBy: r.startedBy,
    errorMessage: r.errorMessage,
    recordsExtracted: r.recordsExtracted,
    recordsExported: r.recordsExported,
    parallelism: r.parallelism,
    parallelSet: r.parallelSet,
    logLevel: r.logLevel,
    logMode: r.logMode,
    scheduleId: r.scheduleId === null ? null : Number(r.scheduleId),
    progress: isActive(r.status)
      ? { pageCount: r.pageCount, dataCount: r.recordsExtracted, errorCount: r.errorCount }
      : null,
    created: r.created,
  };
}

/** A Run of the organization-wide list, with its Agent's name. */
export function toRunListItem(r: RunRow & { agent: { name: string } }): RunListItemModel {
  return { ...toRunView(r), agentName: r.agent.name };
}

export type StartResult =
  | { kind: 'queued'; run: RunView }
  /** The records as a JSON array, streamed (at most RUN_SYNC_INLINE_MAX_BYTES of NDJSON). */
  | { kind: 'records'; run: RunView; records: AsyncIterable<Buffer> }
  /** Ended, but with more records than are answered inline: the client reads the Run's files. */
  | { kind: 'tooLarge'; run: RunView }
  | { kind: 'finished'; run: RunView };
