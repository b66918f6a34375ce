// All Prisma access of the runs domain. Status changes are conditional updates (the row moves only
// from a status the event allows), each ONE statement that also updates the Agent's denormalised
// status (touchAgentSql: only the Agent's latest Run decides it).
import type { Db, Decimal, RawTx, Tx } from '../../db/prisma.js';
import { creditsBalanceSql } from '../billing/credits.repository.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { SpaceAccess } from '../access/access.service.js';
import { createRunReads, replaceFilesSql, type NewRunFile } from './run-reads.repository.js';
import {
  ACTIVE_STATUSES,
  EXECUTING_STATUSES,
  isTerminal,
  nextStatus,
  RunStatus,
  statusesAllowing,
  type RunEvent,
  type RunStatusValue,
} from './status-machine.js';

export type RunRow = Awaited<ReturnType<Db['run']['findUniqueOrThrow']>>;

export interface NewRun {
  organizationId: number;
  agentId: number;
  agentVersion: number;
  startedBy: string;
  startedByUserId: number | null;
  scheduleId?: bigint | null;
  scheduledFor?: Date | null;
  parallelism: number;
  parallelMaxConcurrency: number;
  parallelExport: string;
  proxyPoolId: number | null;
  serverGroupId?: number | null;
  logLevel: string;
  logMode: string;
  isExclusive: boolean;
  isWaitOnFailure: boolean;
  /** A synchronous start: the run process keeps every record for the answer (absent: false). */
  keepRecords?: boolean;
  timeoutSeconds: number | null;
  inputParameters: string | null;
}

/** The columns a status change may also set, with their SQL types (statements are written in SQL: one per change). */
const PATCH_COLUMNS = {
  startTime: 'timestamp',
  endTime: 'timestamp',
  waitUntil: 'timestamp',
  stopRequested: 'timestamp',
  errorMessage: 'text',
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
export type RunPatch = Partial<Pick<RunRow, Exclude<PatchColumn, 'evidence'>>> & { evidence?: Prisma.InputJsonValue };

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

/** The Agent's denormalised status follows the Run moved by the CTE `from`: only its latest Run decides. */
function touchAgentSql(from: string, at: Date): Prisma.Sql {
  const f = Prisma.raw(from);
  return Prisma.sql`
    UPDATE "Agent" a SET status = ${f}.status, "lastRunId" = ${f}.id, "lastActivity" = ${at.toISOString()}::timestamp, updated = ${new Date().toISOString()}::timestamp
    FROM ${f} WHERE a.id = ${f}."agentId" AND (a."lastRunId" IS NULL OR a."lastRunId" <= ${f}.id)`;
}

export type { OrgRunsFilter } from './run-reads.repository.js';

export class ActiveRunExistsError extends Error {}

/**
 * The exclusivity rule of a new Run: refused (or Skipped, with skipIfActive) when it is exclusive
 * and the Agent has an active Run, or when that active Run is itself exclusive.
 */
function admission(
  input: { agentId: number; isExclusive: boolean },
  active: { id: number; isExclusive: boolean } | null,
  opts: { skipIfActive?: boolean; skipReason?: string },
) {
  let skipped: string | null = opts.skipReason ?? null;
  if (!skipped && active && (input.isExclusive || active.isExclusive)) {
    if (!opts.skipIfActive)
      throw new ActiveRunExistsError(`Agent ${input.agentId} already has an active Run (${active.id}).`);
    skipped = `Skipped: Run ${active.id} of this exclusive Agent was still active.`;
  }
  const status: RunStatusValue = skipped ? 11 : 4;
  return { status, skipped };
}

export interface CreateRunOptions {
  skipIfActive?: boolean;
  enqueue?: (run: RunRow) => Promise<void>;
}

/** What a start reads under the Agent's lock (`startRun`): the Agent, its latest version, its organization's credits. */
export interface StartableAgent {
  agent: Pick<AgentRow, 'id' | 'isArchived' | 'validationStatus' | 'proxyPoolId'>;
  /** What decides the starter's access (access.service's `checkAccess`), read by the same statement. */
  access: SpaceAccess;
  version: { version: number; definition: unknown } | null;
  credits: Decimal;
}
type AgentRow = Awaited<ReturnType<Db['agent']['findUniqueOrThrow']>>;

export interface RunsRepositoryHooks {
  /** Awaited after a transition to a terminal status has committed (settlement: metering, rollups). */
  onTerminal?(run: RunRow): Promise<void>;
}

/**
 * Advisory-lock namespace held by the transaction that creates a Run until it commits: the job that
 * executes the Run is enqueued inside that transaction, and a worker that picks the job before the
 * commit waits on this lock instead of taking the Run for missing.
 */
const RUN_CREATION_LOCK = 0x52554e;

export function createRunsRepository(db: Db, hooks: RunsRepositoryHooks = {}) {
  async function committed(run: RunRow): Promise<RunRow> {
    if (isTerminal(run.status)) await hooks.onTerminal?.(run);
    return run;
  }

  /** A new Run, in the transaction that holds its Agent's lock: the exclusivity rule, the row, the Agent's status. */
  /**
   * A new Run, in the transaction that holds its Agent's lock, in one statement: the row (Queuing), the
   * Agent's status, the creation lock, and the Agent's active Run read in the same snapshot (taken after
   * the lock, so it sees every Run committed before). The exclusivity rule (`admission`) then decides:
   * a refused Run is rolled back with the transaction; a skipped one becomes Skipped.
   */
  async function insertRun(tx: RawTx, input: NewRun, at: Date, opts: CreateRunOptions): Promise<RunRow> {
    const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
    const lock = opts.enqueue
      ? Prisma.sql`, LATERAL (SELECT pg_advisory_xact_lock(${RUN_CREATION_LOCK}::int, run.id)) l`
      : Prisma.empty;
    const [row] = await tx.rows<RunRow & { _activeId: number | null; _activeExclusive: boolean | null }>(Prisma.sql`
      WITH active AS (
        SELECT id, "isExclusive" FROM "Run" WHERE "agentId" = ${input.agentId}::int AND status = ANY(${[...ACTIVE_STATUSES]}::int[])
        ORDER BY "isExclusive" DESC, id LIMIT 1
      ), run AS (
        INSERT INTO "Run" ("organizationId", "agentId", "agentVersion", "startedBy", "startedByUserId", "scheduleId", "scheduledFor",
          parallelism, "parallelMaxConcurrency", "parallelExport", "proxyPoolId", "serverGroupId", "logLevel", "logMode", "isExclusive",
          "isWaitOnFailure", "keepRecords", "timeoutSeconds", "inputParameters", status, "statusChanged", created, updated)
        VALUES (${input.organizationId}::int, ${input.agentId}::int, ${input.agentVersion}::int, ${input.startedBy}::text,
          ${input.startedByUserId}::int, ${input.scheduleId?.toString() ?? null}::bigint, ${iso(input.scheduledFor)}::timestamp,
          ${input.parallelism}::int, ${input.parallelMaxConcurrency}::int, ${input.parallelExport}::text, ${input.proxyPoolId}::int,
          ${input.serverGroupId ?? null}::int, ${input.logLevel}::text, ${input.logMode}::text, ${input.isExclusive}::boolean,
          ${input.isWaitOnFailure}::boolean, ${input.keepRecords ?? false}::boolean, ${input.timeoutSeconds}::int,
          ${input.inputParameters}::text, ${RunStatus.Queuing}::int, ${at.toISOString()}::timestamp,
          ${new Date().toISOString()}::timestamp, ${at.toISOString()}::timestamp)
        RETURNING *
      ), agent AS (${touchAgentSql('run', at)})
      SELECT run.*, active.id AS "_activeId", active."isExclusive" AS "_activeExclusive"
      FROM run LEFT JOIN active ON true${lock}`);
    const { _activeId: activeId, _activeExclusive: activeExclusive, ...inserted } = row;
    const active = activeId === null ? null : { id: activeId, isExclusive: activeExclusive === true };
    const { status, skipped } = admission(input, active, opts);
    if (status === RunStatus.Skipped) {
      const [run] = await tx.rows<RunRow>(Prisma.sql`
        WITH moved AS (
          UPDATE "Run" SET status = ${RunStatus.Skipped}::int, "endTime" = ${at.toISOString()}::timestamp, "errorMessage" = ${skipped}::text
          WHERE id = ${inserted.id}::int RETURNING *
        ), agent AS (${touchAgentSql('moved', at)})
        SELECT * FROM moved`);
      return run;
    }
    if (opts.enqueue) await opts.enqueue(inserted);
    return inserted;
  }

  return {
    /**
     * Inserts a Run in status Queuing (or Skipped). The Agent row is locked first, so two concurrent
     * starts of the same Agent are serialized and at most one exclusive Run is ever active.
     * `enqueue` runs inside the transaction for a Queuing Run: when it fails, the Run is never
     * committed, so no Run exists that nobody will execute (or that executes after its start failed).
     */
    async createRun(input: NewRun, at: Date, opts: CreateRunOptions = {}): Promise<RunRow> {
      const created = await db.$rawTransaction(async (tx) => {
        await tx.rows(Prisma.sql`SELECT id FROM "Agent" WHERE id = ${input.agentId}::int FOR UPDATE`);
        return insertRun(tx, input, at, opts);
      });
      return committed(created);
    },

    /**
     * Starts a Run of an Agent: reads the Agent, its latest version and its organization's credits
     * under the Agent's lock, and `admit` (the caller's rules) decides from them what Run to insert,
     * or throws, and nothing is written. Then as `createRun`. Four statements in three round trips
     * (BEGIN goes with the locked read; COMMIT follows the enqueue).
     */
    async startRun(
      starter: { agentId: number; organizationId: number; userId: number | null },
      at: Date,
      admit: (agent: StartableAgent | null) => Promise<NewRun>,
      opts: CreateRunOptions = {},
    ): Promise<RunRow> {
      const created = await db.$rawTransaction(async (tx) => {
        // Only an Agent of the starter's organization is read and locked (another's is not found, as for access).
        const [row] = await tx.rows<
          StartableAgent['agent'] & SpaceAccess & { _version: number | null; _definition: unknown; _credits: Decimal }
        >(
          Prisma.sql`
          SELECT a.id, a."isArchived", a."validationStatus", a."proxyPoolId", a."organizationId",
            s."isDefaultAccess", m.role AS "membershipRole",
            v.version AS "_version", v.definition AS "_definition",
            ${creditsBalanceSql(Prisma.sql`a."organizationId"`, at)} AS "_credits"
          FROM "Agent" a
          JOIN "Space" s ON s.id = a."spaceId"
          LEFT JOIN "SpaceMembership" m ON m."spaceId" = a."spaceId" AND m."userId" = ${starter.userId}::int
          LEFT JOIN LATERAL (SELECT version, definition FROM "AgentVersion" WHERE "agentId" = a.id ORDER BY version DESC LIMIT 1) v ON true
          WHERE a.id = ${starter.agentId}::int AND a."organizationId" = ${starter.organizationId}::int
          FOR UPDATE OF a`,
        );
        let agent: StartableAgent | null = null;
        if (row) {
          const {
            _version: version,
            _definition: definition,
            _credits: credits,
            organizationId,
            isDefaultAccess,
            membershipRole,
            ...rest
          } = row;
          agent = {
            agent: rest,
            access: { organizationId, isDefaultAccess, membershipRole },
            version: version === null ? null : { version, definition },
            credits,
          };
        }
        return insertRun(tx, await admit(agent), at, opts);
      });
      return committed(created);
    },

    /**
     * `createRun` for many Runs at once inside the caller's transaction (Schedule fires): the same
     * Agent locks (taken in id order) and the same exclusivity rule, applied in input order, in a
     * fixed number of statements. Never throws for an active Run: those become Skipped.
     */
    async createRuns(inputs: Array<{ run: NewRun; skipReason?: string }>, at: Date, tx: Tx): Promise<RunRow[]> {
      if (inputs.length === 0) return [];
      const agentIds = [...new Set(inputs.map((i) => i.run.agentId))].sort((a, b) => a - b);
      await tx.$queryRaw`SELECT id FROM "Agent" WHERE id = ANY(${agentIds}::int[]) ORDER BY id FOR UPDATE`;
      // Per Agent, the active Run that decides: an exclusive one if there is one.
      const activeRows = await tx.$queryRaw<Array<{ agentId: number; id: number; isExclusive: boolean }>>`
        SELECT DISTINCT ON ("agentId") "agentId", id, "isExclusive" FROM "Run"
        WHERE "agentId" = ANY(${agentIds}::int[]) AND status = ANY(${[...ACTIVE_STATUSES]}::int[])
        ORDER BY "agentId", "isExclusive" DESC, id`;
      const active = new Map(activeRows.map((r) => [r.agentId, { id: r.id, isExclusive: r.isExclusive }]));
      // Ids first, so a Run skipped because of one created earlier in the batch can name it.
      const ids = (
        await tx.$queryRaw<Array<{ id: number }>>`
        SELECT nextval(pg_get_serial_sequence('"Run"', 'id'))::int AS id FROM generate_series(1, ${inputs.length}::int)`
      ).map((r) => r.id);
      const data = inputs.map(({ run, skipReason }, i) => {
        const { status, skipped } = admission(run, active.get(run.agentId) ?? null, { skipIfActive: true, skipReason });
        const current = active.get(run.agentId);
        if (status === RunStatus.Queuing && (!current || (run.isExclusive && !current.isExclusive)))
          active.set(run.agentId, { id: ids[i], isExclusive: run.isExclusive });
        return {
          ...run,
          id: ids[i],
          status,
          statusChanged: at,
          endTime: status === RunStatus.Skipped ? at : null,
          errorMessage: skipped,
        };
      });
      // One INSERT over column arrays (Prisma's createManyAndReturn costs milliseconds per row here).
      const col = <K extends keyof (typeof data)[number]>(k: K) => data.map((d) => d[k] ?? null);
      const iso = (ds: Array<Date | null>) => ds.map((d) => d?.toISOString() ?? null);
      const runs = await tx.$queryRaw<RunRow[]>`
        INSERT INTO "Run" (id, "organizationId", "agentId", "agentVersion", "startedBy", "startedByUserId", "scheduleId", "scheduledFor",
          parallelism, "parallelMaxConcurrency", "parallelExport", "proxyPoolId", "serverGroupId", "logLevel", "logMode", "isExclusive",
          "isWaitOnFailure", "timeoutSeconds", "inputParameters", status, "statusChanged", "endTime", "errorMessage", created, updated)
        SELECT v.*, clock_timestamp(), ${at.toISOString()}::timestamp FROM unnest(
          ${col('id')}::int[], ${col('organizationId')}::int[], ${col('agentId')}::int[], ${col('agentVersion')}::int[], ${col('startedBy')}::text[],
          ${col('startedByUserId')}::int[], ${col('scheduleId')}::bigint[], ${iso(col('scheduledFor'))}::timestamp[], ${col('parallelism')}::int[],
          ${col('parallelMaxConcurrency')}::int[], ${col('parallelExport')}::text[], ${col('proxyPoolId')}::int[], ${col('serverGroupId')}::int[],
          ${col('logLevel')}::text[], ${col('logMode')}::text[], ${col('isExclusive')}::boolean[], ${col('isWaitOnFailure')}::boolean[],
          ${col('timeoutSeconds')}::int[], ${col('inputParameters')}::text[], ${col('status')}::int[], ${iso(col('statusChanged'))}::timestamp[],
          ${iso(col('endTime'))}::timestamp[], ${col('errorMessage')}::text[]) AS v
        RETURNING *`;
      // The Agent's denormalised status follows its latest Run.
      const latest = new Map<number, RunRow>();
      for (const r of runs) if ((latest.get(r.agentId)?.id ?? 0) < r.id) latest.set(r.agentId, r);
      const l = [...latest.values()];
      await tx.$executeRaw`
        UPDATE "Agent" a SET status = v.status, "lastRunId" = v.id, "lastActivity" = ${at.toISOString()}::timestamp
        FROM unnest(${l.map((r) => r.agentId)}::int[], ${l.map((r) => r.id)}::int[], ${l.map((r) => r.status)}::int[]) AS v("agentId", id, status)
        WHERE a.id = v."agentId" AND (a."lastRunId" IS NULL OR a."lastRunId" <= v.id)`;
      return runs;
    },

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
     * and with `files`, the Run's file rows set to these (whether or not the status moved).
     */
    async transition(
      runId: number,
      event: RunEvent,
      at: Date,
      patch: RunPatch = {},
      files?: NewRunFile[],
    ): Promise<RunRow | null> {
      const allowed = statusesAllowing(event);
      if (allowed.length === 0) return null;
      const to = nextStatus(allowed[0], event);
      const rows = await db.$rows<RunRow>(Prisma.sql`
        WITH moved AS (
          UPDATE "Run" SET status = ${to}::int, "statusChanged" = ${at.toISOString()}::timestamp, ${patchSql(patch)}
          WHERE id = ${runId}::int AND status = ANY(${allowed}::int[])
          RETURNING *
        ), agent AS (${touchAgentSql('moved', at)})${files ? Prisma.sql`, ${replaceFilesSql(runId, files)}` : Prisma.empty}
        SELECT * FROM moved`);
      return rows[0] ? committed(rows[0]) : null;
    },

    /**
     * Takes a Queuing Run for execution (Queuing -> Starting) and reads what its run process needs
     * (the Agent version's definition, the proxy pool's sealed list), in one statement. Null when the
     * Run is not Queuing (or not committed yet): the caller then takes the general path.
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
