// All Prisma access of the runs domain. Status changes are conditional updates (the row moves only
// from a status the event allows), each ONE statement that also updates the Agent's denormalised
// status (touchAgentSql: only the Agent's latest Run decides it). Creating Runs: run-creation.repository.ts.
import type { Db } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import { createRunCreation, RUN_CREATION_LOCK } from './run-creation.repository.js';
import { createRunReads, replaceFilesSql, type NewRunFile } from './run-reads.repository.js';
import {
  SETTLED_RUN_COLUMNS,
  settledRunOf,
  touchAgentSql,
  type RunRow,
  type SettledRun,
} from './run-sql.repository.js';
import {
  EXECUTING_STATUSES,
  isTerminal,
  nextStatus,
  RunStatus,
  statusesAllowing,
  type RunEvent,
} from './status-machine.js';

export type { RunRow, SettledRun } from './run-sql.repository.js';
export type { NewRunFile } from './run-reads.repository.js';
export {
  ActiveRunExistsError,
  type CreateRunOptions,
  type NewRun,
  type StartableAgent,
} from './run-creation.repository.js';

/** The columns a status change may also set, with their SQL types (statements are written in SQL: one per change). */
const PATCH_COLUMNS = {
  startTime: 'timestamp',
  endTime: 'timestamp',
  waitUntil: 'timestamp',
  stopRequested: 'timestamp',
  errorMessage: 'text',
  errorCode: 'text',
  errorParams: 'jsonb',
  retryCount: 'int',
  pageCount: 'int',
  recordsExtracted: 'int',
  recordsExported: 'int',
  errorCount: 'int',
  inputCount: 'int',
  exportCount: 'int',
  traffic: 'bigint',
  evidence: 'jsonb',
} as const;
type PatchColumn = keyof typeof PATCH_COLUMNS;
export type RunPatch = Partial<Pick<RunRow, Exclude<PatchColumn, 'evidence' | 'errorParams'>>> & {
  evidence?: Prisma.InputJsonValue;
  errorParams?: Prisma.InputJsonValue | null;
};

/** `col = value, ...` of a patch, plus `updated` (what Prisma's @updatedAt would set). */
function patchSql(patch: RunPatch): Prisma.Sql {
  const sets = [Prisma.sql`updated = ${new Date().toISOString()}::timestamp`];
  for (const [key, value] of Object.entries(patch) as Array<[PatchColumn, unknown]>) {
    const type = PATCH_COLUMNS[key];
    if (!type) throw new Error(`not a Run patch column: ${key}`);
    if (value === undefined) continue;
    const param =
      value === null
        ? null
        : type === 'timestamp'
          ? (value as Date).toISOString()
          : type === 'jsonb'
            ? JSON.stringify(value)
            : type === 'bigint'
              ? (value as bigint).toString()
              : value;
    sets.push(Prisma.sql`${Prisma.raw(`"${key}"`)} = ${param}::${Prisma.raw(type)}`);
  }
  return Prisma.join(sets, ', ');
}

/** The patch's values of the columns a settlement reads. */
function settledPatch(patch: RunPatch): Partial<SettledRun> {
  const out: Partial<Record<keyof SettledRun, unknown>> = {};
  for (const [key, value] of Object.entries(patch))
    if (key in SETTLED_RUN_COLUMNS && value !== undefined) out[key as keyof SettledRun] = value;
  return out as Partial<SettledRun>;
}

export type { OrgRunsFilter } from './run-reads.repository.js';

/**
 * A status change to a terminal status as the settlement's claim statement makes it (the Run ends and
 * is settled in one transaction): see RunsRepositoryHooks.settleMoving.
 */
export interface TerminalMove {
  /** The Run's SET list: its status and the change's patch (the claim adds `settledAt`). */
  set: Prisma.Sql;
  /** The statuses the change is allowed from. */
  from: readonly number[];
  /**
   * An UPDATE ... RETURNING that follows the change, given the name of the changed Run's WITH item: the
   * Agent's status. It runs before the settlement's steps, so a Run's end locks its Run, then its Agent,
   * then the rows the steps write, as every other status change locks the Run before the Agent.
   */
  touch(moved: string): Prisma.Sql;
  /** Statements before the change, in its round trip (its snapshot sees them): the Run's new files. */
  before: Prisma.Sql[];
  /**
   * The Run as the change will leave it, from the row its caller knows (the worker's, since it took the
   * Run), and its new files: the settlement can then be sent with the change in one round trip, checked
   * against what the change really left (RunsRepositoryHooks.settleMoving).
   */
  expected?: { run: SettledRun; files?: readonly NewRunFile[] };
}

export interface RunsRepositoryHooks {
  /** Awaited after a transition to a terminal status has committed: settles the Run (never throws). */
  settle?(run: RunRow): Promise<void>;
  /**
   * Makes a change to a terminal status and settles the Run in one transaction (`alone` makes the
   * change by itself, when that cannot be done): the changed Run, or null when its status did not allow
   * the change. Without it, changes are made alone and `settle` follows.
   */
  settleMoving?(runId: number, move: TerminalMove, alone: () => Promise<RunRow | null>): Promise<RunRow | null>;
  /** Awaited once a Run's terminal status (and its settlement) committed. */
  ended?(run: RunRow): Promise<void>;
}

export function createRunsRepository(db: Db, hooks: RunsRepositoryHooks = {}) {
  async function committed(run: RunRow): Promise<RunRow> {
    if (!isTerminal(run.status)) return run;
    await hooks.settle?.(run);
    await hooks.ended?.(run);
    return run;
  }

  return {
    ...createRunCreation(db, committed),

    /** For Runs created inside the caller's transaction (`createRuns`): call once it has committed. */
    afterCommit: committed,

    /** A Run as a worker picks it: waits for the transaction creating it to end (see createRun). */
    async findRunToPick(id: number) {
      const run = await db.run.findUnique({ where: { id } });
      if (run) return run;
      return db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${RUN_CREATION_LOCK}::int, ${id}::int)`;
        return tx.run.findUnique({ where: { id } });
      });
    },

    /**
     * Applies `event` if the Run's current status allows it; null when it does not (raced). One
     * statement: the conditional update of the Run and the Agent's denormalised status together,
     * and with `files`, the Run's file rows set to these (whether or not the status moved). `known`: the
     * Run as the caller last read it, so that a change to a terminal status can be settled with it in one
     * round trip (TerminalMove.expected).
     */
    async transition(
      runId: number,
      event: RunEvent,
      at: Date,
      patch: RunPatch = {},
      files?: NewRunFile[],
      known?: SettledRun,
    ): Promise<RunRow | null> {
      const allowed = statusesAllowing(event);
      if (allowed.length === 0) return null;
      const to = nextStatus(allowed[0], event);
      const set = Prisma.sql`status = ${to}::int, "statusChanged" = ${at.toISOString()}::timestamp, ${patchSql(patch)}`;
      const alone = async () => {
        const rows = await db.$rows<RunRow>(Prisma.sql`
          WITH moved AS (
            UPDATE "Run" SET ${set} WHERE id = ${runId}::int AND status = ANY(${allowed}::int[])
            RETURNING *
          ), agent AS (${touchAgentSql('moved', at)})${files ? Prisma.sql`, ${replaceFilesSql(runId, files)}` : Prisma.empty}
          SELECT * FROM moved`);
        return rows[0] ?? null;
      };
      if (!isTerminal(to) || !hooks.settleMoving) {
        const moved = await alone();
        return moved ? committed(moved) : null;
      }
      // A Run's end: the settlement's claim makes the change, in the transaction that settles it.
      const move: TerminalMove = {
        set,
        from: allowed,
        touch: (m) => Prisma.sql`${touchAgentSql(m, at)} RETURNING a.id`,
        before: files ? [Prisma.sql`WITH ${replaceFilesSql(runId, files)} SELECT 1`] : [],
        expected: known ? { run: { ...settledRunOf(known), ...settledPatch(patch), status: to }, files } : undefined,
      };
      const ended = await hooks.settleMoving(runId, move, alone);
      if (ended) await hooks.ended?.(ended);
      return ended;
    },

    /**
     * Takes a Queuing Run for execution (Queuing -> Starting) and reads what its run process needs
     * (the Agent version's definition, the proxy pool's sealed list), in one statement. The Run's
     * creation lock is taken by a statement before it, in the same round trip: a job picked before the
     * start that enqueued it committed waits for that commit, and its statement then sees the Run. Null
     * when the Run is not Queuing: the caller then takes the general path.
     */
    async takeQueued(
      runId: number,
      at: Date,
    ): Promise<{ run: RunRow; definition: unknown; agentExists: boolean; proxies: string | null } | null> {
      const rows = await db.$rows<RunRow & { _definition: unknown; _agentExists: boolean; _proxies: string | null }>(
        Prisma.sql`
        WITH moved AS (
          UPDATE "Run" SET status = ${RunStatus.Starting}::int, "statusChanged" = ${at.toISOString()}::timestamp,
            "startTime" = ${at.toISOString()}::timestamp, "errorMessage" = NULL, updated = ${new Date().toISOString()}::timestamp
          WHERE id = ${runId}::int AND status = ${RunStatus.Queuing}::int
          RETURNING *
        ), agent AS (${touchAgentSql('moved', at)})
        SELECT moved.*, v.definition AS "_definition", (a.id IS NOT NULL) AS "_agentExists", p.proxies AS "_proxies"
        FROM moved
        LEFT JOIN "Agent" a ON a.id = moved."agentId"
        LEFT JOIN "AgentVersion" v ON v."agentId" = moved."agentId" AND v.version = moved."agentVersion"
        LEFT JOIN "ProxyPool" p ON p.id = moved."proxyPoolId"`,
        { before: [Prisma.sql`SELECT pg_advisory_xact_lock(${RUN_CREATION_LOCK}::int, ${runId}::int)`] },
      );
      const row = rows[0];
      if (!row) return null;
      const { _definition: definition, _agentExists: agentExists, _proxies: proxies, ...run } = row;
      return { run: await committed(run), definition, agentExists, proxies };
    },

    updateProgress(
      runId: number,
      data: {
        pageCount: number;
        recordsExtracted: number;
        errorCount: number;
        inputCount: number;
        traffic: bigint;
        evidence?: Prisma.InputJsonValue;
      },
      at: Date,
    ) {
      // `updated` doubles as the heartbeat the reconciler reads.
      return db.run.updateMany({
        where: { id: runId, status: { in: [...EXECUTING_STATUSES] } },
        data: { ...data, updated: at },
      });
    },

    /**
     * Hands an executing Run back to Queuing (its worker shut down, or was lost) and counts the
     * interruption, in one statement, so the attempt that picks it next always finds it counted (and goes
     * on from its checkpoint). `lost`: a Run whose worker was lost, taken over only while its heartbeat
     * is older than `staleBefore` and fewer than `maxTakeovers` times, the takeover counted too. The Run's
     * row lock decides between callers that find the same lost Run at once (the reconcilers of several
     * workers, a stalled job coming back): one moves it; the others, like a Run over its limit, get null.
     */
    async handBack(
      runId: number,
      at: Date,
      patch: RunPatch,
      lost?: { staleBefore: Date; maxTakeovers: number },
    ): Promise<{ run: RunRow; takeovers: number } | null> {
      const event: RunEvent = { type: 'handBack' };
      const allowed = statusesAllowing(event);
      const set = Prisma.sql`status = ${nextStatus(allowed[0], event)}::int, "statusChanged" = ${at.toISOString()}::timestamp, ${patchSql(patch)}`;
      const taken = lost ? 1 : 0;
      const onlyLost = lost
        ? Prisma.sql`AND updated < ${lost.staleBefore.toISOString()}::timestamp
            AND COALESCE((SELECT takeovers FROM "RunCheckpoint" WHERE "runId" = ${runId}::int), 0) < ${lost.maxTakeovers}::int`
        : Prisma.empty;
      const rows = await db.$rows<RunRow & { _takeovers: number }>(Prisma.sql`
        WITH moved AS (
          UPDATE "Run" SET ${set} WHERE id = ${runId}::int AND status = ANY(${allowed}::int[]) ${onlyLost}
          RETURNING *
        ), agent AS (${touchAgentSql('moved', at)}),
        counted AS (
          INSERT INTO "RunCheckpoint" ("runId", interruptions, takeovers, updated)
          SELECT id, 1, ${taken}::int, now() FROM moved
          ON CONFLICT ("runId") DO UPDATE SET interruptions = "RunCheckpoint".interruptions + 1,
            takeovers = "RunCheckpoint".takeovers + ${taken}::int, updated = now()
          RETURNING takeovers
        )
        SELECT moved.*, counted.takeovers AS "_takeovers" FROM moved, counted`);
      const row = rows[0];
      if (!row) return null;
      const { _takeovers: takeovers, ...run } = row;
      return { run, takeovers };
    },

    /** Marks the Run alive and returns what the worker needs to act on (null when it is gone). */
    async heartbeat(runId: number, at: Date): Promise<{ status: number; killRequested: Date | null } | null> {
      const rows = await db.run.updateManyAndReturn({
        where: { id: runId },
        data: { updated: at },
        select: { status: true, killRequested: true },
      });
      return rows[0] ?? null;
    },
    ...createRunReads(db),
  };
}
export type RunsRepository = ReturnType<typeof createRunsRepository>;
