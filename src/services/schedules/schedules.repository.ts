// All Prisma access of the schedules domain: the Schedule rows, the claim of due Schedules by the
// tick (FOR UPDATE SKIP LOCKED, so ticks of several workers share the work and never take the
// same row), and what firing needs to know about the Agents. Times are stored as UTC wall clock
// (timestamp without time zone), so raw queries pass them as ISO strings cast to timestamp.
import type { Db, Prisma, Tx } from '../../db/prisma.js';

export type ScheduleRow = Awaited<ReturnType<Db['schedule']['findUniqueOrThrow']>>;
export type ScheduleData = Omit<Prisma.ScheduleUncheckedCreateInput, 'id' | 'created' | 'updated'>;

/** What firing needs of an Agent: its state and its active version's number and timeout. */
export interface FiringAgent {
  id: number;
  organizationId: number;
  spaceId: number;
  isArchived: boolean;
  validationStatus: number;
  proxyPoolId: number | null;
  version: number | null;
  timeoutSeconds: number | null;
}

export function createSchedulesRepository(db: Db) {
  return {
    findSchedule(id: bigint) {
      return db.schedule.findUnique({ where: { id } });
    },

    listSchedules(agentId: number, page?: { skip: number; take: number }) {
      return db.schedule.findMany({ where: { agentId }, orderBy: { id: 'asc' }, skip: page?.skip, take: page?.take });
    },

    countSchedules(agentId: number) {
      return db.schedule.count({ where: { agentId } });
    },

    createSchedule(data: ScheduleData) {
      return db.schedule.create({ data });
    },

    updateSchedule(id: bigint, data: Partial<ScheduleData>, at: Date) {
      return db.schedule.update({ where: { id }, data: { ...data, updated: at } });
    },

    deleteSchedule(id: bigint) {
      return db.schedule.deleteMany({ where: { id } });
    },

    /**
     * Enabled Schedules whose next run is at most `until`, earliest first, with their Agent's name,
     * in the given Spaces ('all': the whole organization); archived Agents left out.
     */
    upcomingSchedules(organizationId: number, spaceIds: number[] | 'all', until: Date, take: number) {
      return db.schedule.findMany({
        where: {
          organizationId,
          isEnabled: true,
          nextRunTime: { not: null, lte: until },
          agent: { isArchived: false, ...(spaceIds === 'all' ? {} : { spaceId: { in: spaceIds } }) },
        },
        orderBy: [{ nextRunTime: 'asc' }, { id: 'asc' }],
        take,
        include: { agent: { select: { name: true } } },
      });
    },

    /** Claims up to `limit` due Schedules for the caller's transaction; rows another tick holds are skipped. */
    claimDue(at: Date, limit: number, tx: Tx): Promise<ScheduleRow[]> {
      return tx.$queryRaw<ScheduleRow[]>`
        SELECT * FROM "Schedule"
        WHERE "isEnabled" = true AND "nextRunTime" <= ${at.toISOString()}::timestamp
        ORDER BY "nextRunTime", id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED`;
    },

    async firingAgents(agentIds: number[], tx: Tx): Promise<Map<number, FiringAgent>> {
      if (agentIds.length === 0) return new Map();
      const rows = await tx.$queryRaw<FiringAgent[]>`
        SELECT a.id, a."organizationId", a."spaceId", a."isArchived", a."validationStatus", a."proxyPoolId",
               v.version, (v.definition->>'timeoutSeconds')::int AS "timeoutSeconds"
        FROM "Agent" a
        LEFT JOIN LATERAL (
          SELECT version, definition FROM "AgentVersion" WHERE "agentId" = a.id ORDER BY version DESC LIMIT 1
        ) v ON true
        WHERE a.id = ANY(${agentIds}::int[])`;
      return new Map(rows.map((r) => [r.id, r]));
    },

    /** Of the given (Schedule, fire time) pairs, those that already have their Run, as `id@ms` keys. */
    async firedAlready(pairs: Array<{ scheduleId: bigint; at: Date }>, tx: Tx): Promise<Set<string>> {
      if (pairs.length === 0) return new Set();
      const rows = await tx.$queryRaw<Array<{ scheduleId: bigint; scheduledFor: Date }>>`
        SELECT r."scheduleId", r."scheduledFor" FROM "Run" r
        JOIN unnest(${pairs.map((p) => p.scheduleId)}::bigint[], ${pairs.map((p) => p.at.toISOString())}::timestamp[]) AS f(id, at)
          ON r."scheduleId" = f.id AND r."scheduledFor" = f.at`;
      return new Set(rows.map((r) => `${r.scheduleId}@${r.scheduledFor.getTime()}`));
    },

    /** After fires: each Schedule's next due time (null: none), whether it stays enabled, and the fire time done. */
    advance(
      rows: Array<{ id: bigint; nextRunTime: Date | null; isEnabled: boolean; lastFired: Date }>,
      at: Date,
      tx: Tx,
    ) {
      if (rows.length === 0) return Promise.resolve(0);
      return tx.$executeRaw`
        UPDATE "Schedule" s SET "nextRunTime" = v.next, "isEnabled" = v.enabled, "lastFired" = v.fired, updated = ${at.toISOString()}::timestamp
        FROM unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.nextRunTime?.toISOString() ?? null)}::timestamp[],
                    ${rows.map((r) => r.isEnabled)}::boolean[], ${rows.map((r) => r.lastFired.toISOString())}::timestamp[]) AS v(id, next, enabled, fired)
        WHERE s.id = v.id`;
    },

    transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: { timeout?: number; maxWait?: number }): Promise<T> {
      return db.$transaction(fn, opts);
    },
  };
}
export type SchedulesRepository = ReturnType<typeof createSchedulesRepository>;
