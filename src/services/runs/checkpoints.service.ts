// Resumable Runs: the checkpoints an executing Run's crawl reports are kept (checkpoints.repository),
// a Run interrupted (handed back at shutdown, or its worker lost) says so in its log, and the next
// attempt gets the checkpoint and its records to go on from. A Run's checkpoint is removed at its end.
import type { Clock } from '../../lib/clock.js';
import { appendRunLogLine, fetchesOnePage, type CrawlCheckpoint } from '../../engine/index.js';
import { storageFailureOf, type Storage } from '../../storage/index.js';
import type { CheckpointsRepository } from './checkpoints.repository.js';
import { runLogKey } from './run-keys.js';
import { failureColumns } from './run-errors.js';
import { type ChildStartPayload, type ResumePayload } from './run-protocol.js';
import type { RunsRepository } from './runs.repository.js';
import { statusesAllowing } from './status-machine.js';

/** What became of a lost Run that was to be taken over (RunCheckpoints.takeOver). */
export type TakeoverOutcome = 'taken' | 'refused' | 'notLost';

/** What a Run handed back forgets of its attempt. */
const RESET = { startTime: null, ...failureColumns(null) };

/** The statuses a lost Run is taken over from. */
const HANDED_BACK_FROM: readonly number[] = statusesAllowing({ type: 'handBack' });

export function createRunCheckpoints(deps: {
  repo: CheckpointsRepository;
  runs: Pick<RunsRepository, 'handBack' | 'findRun'>;
  /** Enqueues a job of its own for a Run taken over from a lost worker (whose job may still be active). */
  scheduler: { enqueueTakeover?(runId: number, attempt: number, takeover: number): Promise<void> };
  storage: Pick<Storage, 'append'>;
  clock: Clock;
  /** RUN_MAX_TAKEOVERS: times a Run whose worker was lost goes on elsewhere; 0: never. */
  maxTakeovers: number;
  log?: { error(obj: object, msg: string): void };
}) {
  const { repo, runs, scheduler, storage, clock, maxTakeovers } = deps;

  /** A line in the Run's log; a store that cannot take it does not hold the Run up. */
  async function logLine(runId: number, line: string): Promise<void> {
    try {
      await appendRunLogLine(storage as Storage, runLogKey(runId), line, clock.now(), 'Warning');
    } catch (err) {
      if (!storageFailureOf(err)) throw err;
      deps.log?.error({ runId, err: { message: (err as Error).message } }, 'run log line could not be stored');
    }
  }

  return {
    /** Keeps where the Run has got to, with the records (NDJSON per set) extracted since the last save. */
    async save(runId: number, checkpoint: CrawlCheckpoint, records: Array<{ set: number; ndjson: string }>) {
      const chunk = records.length > 0 ? Object.fromEntries(records.map((r) => [String(r.set), r.ndjson])) : null;
      await repo.save(runId, checkpoint, chunk);
    },

    /** What the next attempt of an interrupted Run goes on from; undefined for a Run never interrupted. */
    async resumeOf(runId: number): Promise<ResumePayload | undefined> {
      const stored = await repo.load(runId);
      if (!stored || stored.interruptions === 0) return undefined;
      const records: Array<{ set: number; ndjson: string }> = [];
      for (const chunk of stored.records)
        for (const [set, ndjson] of Object.entries(chunk)) records.push({ set: Number(set), ndjson });
      return { checkpoint: stored.state ?? null, records, attempt: stored.interruptions + 1 };
    },

    /** A planned shutdown hands the Run back to Queuing, the interruption counted; null: not executing. */
    handBack: async (runId: number) => (await runs.handBack(runId, clock.now(), RESET))?.run ?? null,

    /** Says in the Run's log why it was interrupted, and that it goes on from its last checkpoint. */
    note: (runId: number, why: string) => logLine(runId, `${why}. The Run goes on from its last checkpoint.`),

    remove: (runId: number) => repo.remove(runId),

    /**
     * A Run whose worker was lost (heartbeat older than `staleBefore`) goes back to Queuing, to go on from
     * its checkpoint on another worker, at most `maxTakeovers` times (a Run that takes its workers down
     * with it must end). 'refused': it is lost and is not taken over (the caller ends it); 'notLost': it
     * is not lost any more (another caller took it over meanwhile, or it moved on).
     */
    async takeOver(runId: number, why: string, staleBefore: Date): Promise<TakeoverOutcome> {
      if (maxTakeovers === 0 || !scheduler.enqueueTakeover) return 'refused';
      const taken = await runs.handBack(runId, clock.now(), RESET, { staleBefore, maxTakeovers });
      if (!taken) {
        const run = await runs.findRun(runId);
        const lost = run !== null && HANDED_BACK_FROM.includes(run.status) && run.updated < staleBefore;
        return lost ? 'refused' : 'notLost';
      }
      await logLine(
        runId,
        `Interrupted: ${why}; taken over (${taken.takeovers} of at most ${maxTakeovers}). The Run goes on from its last checkpoint.`,
      );
      await scheduler.enqueueTakeover(runId, taken.run.retryCount, taken.takeovers);
      return 'taken';
    },

    /** `prepared` with what an interrupted Run goes on from (a Run of one page has nothing to go on from). */
    async withResume<T extends { payload: ChildStartPayload }>(prepared: T): Promise<T> {
      const { payload } = prepared;
      if (fetchesOnePage(payload.definition, payload.inputRows)) return prepared;
      const resume = await this.resumeOf(payload.runId);
      return resume ? { ...prepared, payload: { ...payload, resume } } : prepared;
    },
  };
}
export type RunCheckpoints = ReturnType<typeof createRunCheckpoints>;
