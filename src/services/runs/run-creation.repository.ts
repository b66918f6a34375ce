// Creating Runs: a start (one Agent, the caller's rules), a Run created directly, and a Schedule's
// batch. Each takes its Agents' locks first, so concurrent starts of one Agent are serialized and at
// most one exclusive Run is ever active, reads the Agent's active Run after the lock (so it sees every
// Run committed before), and applies the exclusivity rule (`admission`) in one place.
import type { Db, Decimal, RawTx, Tx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { SpaceAccess } from '../access/access.service.js';
import { creditsBalanceSql } from '../billing/credits.repository.js';
import { touchAgentSql, type RunRow } from './run-sql.repository.js';
import { ACTIVE_STATUSES, RunStatus, type RunStatusValue } from './status-machine.js';

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
  const status: RunStatusValue = skipped ? RunStatus.Skipped : RunStatus.Queuing;
  return { status, skipped };
}

export interface CreateRunOptions {
  skipIfActive?: boolean;
  /** Enqueues the new Run's job, before its row is written (see RUN_CREATION_LOCK). */
  enqueue?: (run: { id: number }) => Promise<void>;
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

/**
 * Advisory-lock namespace held by the transaction that creates a Run until it commits: the job that
 * executes the Run is enqueued inside that transaction (before the Run's row is written), and a worker
 * that picks the job before the commit waits on this lock instead of taking the Run for missing.
 */
export const RUN_CREATION_LOCK = 0x52554e;

/** What the second statement of a creation reads after the Agent's lock: its active Run, the new Run's id. */
interface AdmissionRead {
  _activeId: number | null;
  _activeExclusive: boolean | null;
  _runId: number;
}

/**
 * The SELECT-list and FROM parts, for the Agent `a`, that read its active Run (an exclusive one first)
 * and take the new Run's id, with the creation lock on it when the job is enqueued before the insert.
 */
function admissionReadSql(locked: boolean) {
  return {
    select: Prisma.sql`active.id AS "_activeId", active."isExclusive" AS "_activeExclusive", n.id AS "_runId"`,
    from: Prisma.sql`
      LEFT JOIN LATERAL (
        SELECT id, "isExclusive" FROM "Run" WHERE "agentId" = a.id AND status = ANY(${[...ACTIVE_STATUSES]}::int[])
        ORDER BY "isExclusive" DESC, id LIMIT 1
      ) active ON true
      CROSS JOIN LATERAL (SELECT nextval(pg_get_serial_sequence('"Run"', 'id'))::int AS id) n
      ${locked ? Prisma.sql`CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock(${RUN_CREATION_LOCK}::int, n.id)) l` : Prisma.empty}`,
  };
}

/** The Agent's row lock, taken by the statement before the read (whose snapshot then sees every Run committed before). */
const agentLockSql = (agentId: number, organizationId?: number) =>
  Prisma.sql`SELECT id FROM "Agent" WHERE id = ${agentId}::int${
    organizationId === undefined ? Prisma.empty : Prisma.sql` AND "organizationId" = ${organizationId}::int`
  } FOR UPDATE`;

/**
 * The Run's row (Queuing, or Skipped with its reason) and its Agent's status, in one statement sent with
 * the COMMIT. Before it, `admission` decides from what the read found, and a Queuing Run's job is enqueued.
 */
async function insertRun(
  tx: RawTx,
  input: NewRun,
  read: AdmissionRead,
  at: Date,
  opts: CreateRunOptions,
): Promise<RunRow> {
  const active = read._activeId === null ? null : { id: read._activeId, isExclusive: read._activeExclusive === true };
  const { status, skipped } = admission(input, active, opts);
  const id = read._runId;
  if (status === RunStatus.Queuing && opts.enqueue) await opts.enqueue({ id });
  const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
  const [run] = await tx.rows<RunRow>(
    Prisma.sql`
    WITH run AS (
      INSERT INTO "Run" (id, "organizationId", "agentId", "agentVersion", "startedBy", "startedByUserId", "scheduleId", "scheduledFor",
        parallelism, "parallelMaxConcurrency", "parallelExport", "proxyPoolId", "serverGroupId", "logLevel", "logMode", "isExclusive",
        "isWaitOnFailure", "keepRecords", "timeoutSeconds", "inputParameters", status, "statusChanged", "endTime", "errorMessage", created, updated)
      VALUES (${id}::int, ${input.organizationId}::int, ${input.agentId}::int, ${input.agentVersion}::int, ${input.startedBy}::text,
        ${input.startedByUserId}::int, ${input.scheduleId?.toString() ?? null}::bigint, ${iso(input.scheduledFor)}::timestamp,
        ${input.parallelism}::int, ${input.parallelMaxConcurrency}::int, ${input.parallelExport}::text, ${input.proxyPoolId}::int,
        ${input.serverGroupId ?? null}::int, ${input.logLevel}::text, ${input.logMode}::text, ${input.isExclusive}::boolean,
        ${input.isWaitOnFailure}::boolean, ${input.keepRecords ?? false}::boolean, ${input.timeoutSeconds}::int,
        ${input.inputParameters}::text, ${status}::int, ${at.toISOString()}::timestamp,
        ${status === RunStatus.Skipped ? at.toISOString() : null}::timestamp, ${skipped}::text,
        ${new Date().toISOString()}::timestamp, ${at.toISOString()}::timestamp)
      RETURNING *
    ), agent AS (${touchAgentSql('run', at)})
    SELECT * FROM run`,
    { last: true },
  );
  return run;
}

/** `committed`: what follows a Run's creation once it committed (a Skipped Run is settled). */
export function createRunCreation(db: Db, committed: (run: RunRow) => Promise<RunRow>) {
  return {
    /**
     * Inserts a Run in status Queuing (or Skipped). The Agent row is locked first, so two concurrent
     * starts of the same Agent are serialized and at most one exclusive Run is ever active.
     * `enqueue` runs inside the transaction for a Queuing Run: when it fails, the Run is never
     * committed, so no Run exists that nobody will execute (or that executes after its start failed).
     * Two round trips: BEGIN, the lock and the read; the insert and COMMIT.
     */
    async createRun(input: NewRun, at: Date, opts: CreateRunOptions = {}): Promise<RunRow> {
      const created = await db.$rawTransaction(async (tx) => {
        const read = admissionReadSql(opts.enqueue !== undefined);
        const [row] = await tx.rows<AdmissionRead>(
          Prisma.sql`SELECT ${read.select} FROM "Agent" a ${read.from} WHERE a.id = ${input.agentId}::int`,
          { before: [agentLockSql(input.agentId)] },
        );
        return insertRun(tx, input, row, at, opts);
      });
      return committed(created);
    },

    /**
     * Starts a Run of an Agent: reads the Agent, its latest version, its organization's credits and its
     * active Run under the Agent's lock, and `admit` (the caller's rules) decides from them what Run to
     * insert, or throws, and nothing is written. Then as `createRun`: five statements in two round trips
     * (BEGIN, the lock and the read; the insert and COMMIT), with the enqueue between them.
     */
    async startRun(
      starter: { agentId: number; organizationId: number; userId: number | null },
      at: Date,
      admit: (agent: StartableAgent | null) => Promise<NewRun>,
      opts: CreateRunOptions = {},
    ): Promise<RunRow> {
      const created = await db.$rawTransaction(async (tx) => {
        // Only an Agent of the starter's organization is read and locked (another's is not found, as for access).
        const read = admissionReadSql(opts.enqueue !== undefined);
        const [row] = await tx.rows<
          StartableAgent['agent'] &
            SpaceAccess &
            AdmissionRead & { _version: number | null; _definition: unknown; _credits: Decimal }
        >(
          Prisma.sql`
          SELECT a.id, a."isArchived", a."validationStatus", a."proxyPoolId", a."organizationId",
            s."isDefaultAccess", m.role AS "membershipRole",
            v.version AS "_version", v.definition AS "_definition",
            ${creditsBalanceSql(Prisma.sql`a."organizationId"`, at)} AS "_credits", ${read.select}
          FROM "Agent" a
          JOIN "Space" s ON s.id = a."spaceId"
          LEFT JOIN "SpaceMembership" m ON m."spaceId" = a."spaceId" AND m."userId" = ${starter.userId}::int
          LEFT JOIN LATERAL (SELECT version, definition FROM "AgentVersion" WHERE "agentId" = a.id ORDER BY version DESC LIMIT 1) v ON true
          ${read.from}
          WHERE a.id = ${starter.agentId}::int AND a."organizationId" = ${starter.organizationId}::int`,
          { before: [agentLockSql(starter.agentId, starter.organizationId)] },
        );
        let agent: StartableAgent | null = null;
        if (row) {
          const {
            _version: version,
            _definition: definition,
            _credits: credits,
            _activeId,
            _activeExclusive,
            _runId,
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
        const input = await admit(agent);
        return insertRun(tx, input, row, at, opts);
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
  };
}
