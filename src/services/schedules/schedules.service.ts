// The rules of Schedules as the API sees them: access, validation (docs/api-contract.md §1 and §5),
// encrypted input parameters (docs/api-contract.md §9; sealed at rest, never returned), nextRunTime,
// enable/disable, and the upcoming fire times across the Schedules a caller can read.
import type { Clock } from '../../lib/clock.js';
import { ErrorCodes, NotFoundError, ValidationError } from '../../lib/errors.js';
import { requestedPage } from '../../lib/paging.js';
import { DAY_MS, parseOpenQueryRange, parseQueryRange } from '../../lib/query-dates.js';
import type { ScheduleBody, SchedulePreviewInput, ScheduleView } from '../../schemas/schedules.js';
import type { AccessService } from '../access/access.service.js';
import type { Principal } from '../identity/principal.js';
import type { ProxyPoolOwnership } from '../proxy-pools/proxy-pools.service.js';
import { openSentParameters, parseSentParameters, sealSentParameters } from '../runs/input-parameters.js';
import { describeSchedule, fireTimesBetween, nextFireAfter, scheduleExpression } from './schedule-time.js';
import type { ScheduleData, ScheduleRow, SchedulesRepository } from './schedules.repository.js';
import { anchorRunEvery, checkTiming, pick, timingFrom, timingOf } from './schedule-timing.js';
import { exactBigIntId } from '../../lib/ids.js';

/** What an encrypted parameter's value shows; sent back unchanged, it keeps the stored secret. */
export const MASK = '********';
const UPCOMING_MAX = 1000;
/** How many fire times a preview lists. */
const PREVIEW_FIRE_TIMES = 5;
/** The last instant a JavaScript Date holds: a preview looks that far for its fire times. */
const MAX_DATE_MS = 8.64e15;

/** Stored parameters as returned: clear values as stored (rule 5), encrypted ones masked. */
function visibleParameters(stored: string | null): string | null {
  if (!stored) return stored;
  const parsed = JSON.parse(stored) as Record<string, string>;
  return JSON.stringify(Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, k.startsWith('?') ? MASK : v])));
}

export function toScheduleView(s: ScheduleRow): ScheduleView {
  const t = timingOf(s);
  return {
    id: Number(s.id),
    configId: s.agentId,
    name: s.name,
    schedule: scheduleExpression(t),
    localSchedule: describeSchedule(t),
    timezone: s.timezone,
    nextRunTime: s.nextRunTime,
    startTime: s.startTime,
    scheduleType: s.scheduleType,
    isEnabled: s.isEnabled,
    runEveryCount: s.runEveryCount,
    runEveryPeriod: s.runEveryPeriod,
    inputParameters: visibleParameters(s.inputParameters),
    parallelism: s.parallelism,
    parallelMaxConcurrency: s.parallelMaxConcurrency,
    parallelExport: s.parallelExport as ScheduleView['parallelExport'],
    proxyPoolId: s.proxyPoolId,
    serverGroupId: s.serverGroupId,
    logLevel: s.logLevel as ScheduleView['logLevel'],
    logMode: s.logMode as ScheduleView['logMode'],
    isExclusive: s.isExclusive,
    isWaitOnFailure: s.isWaitOnFailure,
    created: s.created,
    updated: s.updated,
  };
}

export function createSchedulesService(deps: {
  repo: SchedulesRepository;
  access: AccessService;
  proxyPools: Pick<ProxyPoolOwnership, 'resolve'>;
  clock: Clock;
  config: { encryptionKey: Buffer };
}) {
  const { repo, access, proxyPools, clock, config } = deps;

  async function requireSchedule(principal: Principal, agentId: number, scheduleId: number, need: 'read' | 'write') {
    const agent = await access.requireAgent(principal, agentId, need);
    const id = exactBigIntId(scheduleId);
    const schedule = id === null ? null : await repo.findSchedule(id);
    if (!schedule || schedule.agentId !== agentId)
      throw new NotFoundError(`Schedule ${scheduleId} of agent ${agentId} was not found.`);
    return { agent, schedule };
  }

  function requireNotArchived(agent: { id: number; isArchived: boolean }) {
    if (agent.isArchived)
      throw new ValidationError(
        `Agent ${agent.id} is archived; unarchive it before changing its Schedules.`,
        ErrorCodes.AGENT_ARCHIVED,
      );
  }

  /** Seals `?name` values; a masked value sent back keeps the stored secret. */
  function storedParameters(sent: string | null | undefined, previous: string | null): string | null {
    const params = parseSentParameters(sent);
    if (params.length === 0) return null;
    const kept = new Map(
      openSentParameters(config.encryptionKey, previous)
        .filter((p) => p.encrypted)
        .map((p) => [p.name, p.value]),
    );
    return sealSentParameters(
      config.encryptionKey,
      params.map((p) => (p.encrypted && p.value === MASK && kept.has(p.name) ? { ...p, value: kept.get(p.name)! } : p)),
    );
  }

  const positiveOrNull = (v: number | null | undefined) => (v && v > 0 ? v : null);

  /**
   * The Schedule that results from `body` applied over `current` (null on create): validated, with
   * a RunEvery anchor when none was given and nextRunTime computed from now.
   */
  async function resolve(principal: Principal, body: ScheduleBody, current: ScheduleRow | null): Promise<ScheduleData> {
    const now = clock.now();
    const t = timingFrom(body, current);
    const isEnabled = body.isEnabled ?? current?.isEnabled ?? true;
    const timingSent = (
      ['scheduleType', 'cronExpression', 'timezone', 'startTime', 'runEveryCount', 'runEveryPeriod'] as const
    ).some((k) => body[k] !== undefined);
    checkTiming(t, body, isEnabled && (!current?.isEnabled || timingSent), now);
    anchorRunEvery(t, now);
    // The proxy-pools domain's one ownership rule: another organization's pool is 404, as everywhere.
    const proxyPoolId =
      (await proxyPools.resolve(principal.organizationId, pick(body.proxyPoolId, current?.proxyPoolId ?? null))) ??
      null;
    const becameEnabled = isEnabled && !current?.isEnabled;
    // A fire time already done is never due again, even if the clocks of API and worker disagree.
    const from = current?.lastFired && current.lastFired > now ? current.lastFired : now;
    const nextRunTime = !isEnabled
      ? null
      : timingSent || becameEnabled || !current
        ? nextFireAfter(t, from)
        : current.nextRunTime;
    return {
      organizationId: current?.organizationId ?? principal.organizationId,
      agentId: current?.agentId ?? 0,
      name: pick(body.name, current?.name ?? null),
      ...t,
      // `localSchedule` is computed from the Schedule; what a client sends is not kept.
      localSchedule: null,
      nextRunTime,
      isEnabled,
      inputParameters:
        body.inputParameters === undefined
          ? (current?.inputParameters ?? null)
          : storedParameters(body.inputParameters, current?.inputParameters ?? null),
      parallelism: pick(body.parallelism, current?.parallelism ?? null),
      parallelMaxConcurrency: pick(body.parallelMaxConcurrency, current?.parallelMaxConcurrency ?? null),
      parallelExport: body.parallelExport ?? current?.parallelExport ?? 'Combined',
      proxyPoolId,
      serverGroupId: positiveOrNull(pick(body.serverGroupId, current?.serverGroupId ?? null)),
      logLevel: body.logLevel ?? current?.logLevel ?? 'Info',
      logMode: body.logMode ?? current?.logMode ?? 'Text',
      isExclusive: body.isExclusive ?? current?.isExclusive ?? true,
      isWaitOnFailure: body.isWaitOnFailure ?? current?.isWaitOnFailure ?? false,
    };
  }

  return {
    async list(principal: Principal, agentId: number, q: { pageIndex?: number; recordsPerPage?: number }) {
      await access.requireAgent(principal, agentId, 'read');
      const page = requestedPage(q);
      if (page) {
        const [rows, total] = await Promise.all([
          repo.listSchedules(agentId, { skip: page.skip, take: page.recordsPerPage }),
          repo.countSchedules(agentId),
        ]);
        return { paged: true as const, schedules: rows.map(toScheduleView), totalRecordCount: total };
      }
      return { paged: false as const, schedules: (await repo.listSchedules(agentId)).map(toScheduleView) };
    },

    async get(principal: Principal, agentId: number, scheduleId: number) {
      return toScheduleView((await requireSchedule(principal, agentId, scheduleId, 'read')).schedule);
    },

    async create(principal: Principal, agentId: number, body: ScheduleBody) {
      const agent = await access.requireAgent(principal, agentId, 'write');
      requireNotArchived(agent);
      const data = await resolve(principal, body, null);
      return toScheduleView(await repo.createSchedule({ ...data, organizationId: agent.organizationId, agentId }));
    },

    async update(principal: Principal, agentId: number, scheduleId: number, body: ScheduleBody) {
      const { agent, schedule } = await requireSchedule(principal, agentId, scheduleId, 'write');
      requireNotArchived(agent);
      const data = await resolve(principal, body, schedule);
      return toScheduleView(await repo.updateSchedule(schedule.id, data, clock.now()));
    },

    async remove(principal: Principal, agentId: number, scheduleId: number) {
      const { schedule } = await requireSchedule(principal, agentId, scheduleId, 'write');
      await repo.deleteSchedule(schedule.id);
    },

    /** Enabling computes nextRunTime from now; disabling clears it. */
    async setEnabled(principal: Principal, agentId: number, scheduleId: number, enabled: boolean) {
      const { agent, schedule } = await requireSchedule(principal, agentId, scheduleId, 'write');
      if (enabled) requireNotArchived(agent);
      if (schedule.isEnabled === enabled) return toScheduleView(schedule);
      const data = await resolve(principal, { isEnabled: enabled }, schedule);
      return toScheduleView(
        await repo.updateSchedule(
          schedule.id,
          { isEnabled: data.isEnabled, nextRunTime: data.nextRunTime },
          clock.now(),
        ),
      );
    },

    /**
     * What a new Schedule with this timing would say (localSchedule) and when it would fire next,
     * validated as on create and saving nothing: clients show it before the Schedule is saved.
     */
    preview(body: SchedulePreviewInput): { description: string; nextFireTimes: Date[] } {
      const now = clock.now();
      const t = timingFrom(body, null);
      checkTiming(t, body, true, now);
      anchorRunEvery(t, now);
      return {
        description: describeSchedule(t) ?? '',
        nextFireTimes: fireTimesBetween(t, now, new Date(MAX_DATE_MS), PREVIEW_FIRE_TIMES),
      };
    },

    /** One entry per fire time in the range (default: the next 24 hours), at most 1000. */
    async upcoming(principal: Principal, q: { startDate?: string; endDate?: string }) {
      const now = clock.now();
      const open = parseOpenQueryRange(q);
      const start = open.start ?? now;
      // By default the next 24 hours, a fire time exactly 24 hours ahead included.
      const range = parseQueryRange(q, { end: () => new Date(start.getTime() + DAY_MS + 1), start: () => start });
      // The last instant of the range (its end is exclusive).
      const end = new Date(range.end.getTime() - 1);
      const spaces = await access.readableSpaceIds(principal);
      // The earliest UPCOMING_MAX Schedules hold the earliest UPCOMING_MAX fire times.
      const schedules = await repo.upcomingSchedules(principal.organizationId, spaces, end, UPCOMING_MAX);
      const entries: Array<{
        scheduleId: number;
        agentId: number;
        agentName: string;
        scheduleName: string | null;
        nextRunTime: Date;
        timezone: string | null;
        isEnabled: boolean;
      }> = [];
      let cutoff = end;
      for (const s of schedules) {
        if (!s.nextRunTime || s.nextRunTime > cutoff) break;
        const first = s.nextRunTime >= start ? [s.nextRunTime] : [];
        const from = s.nextRunTime >= start ? s.nextRunTime : new Date(start.getTime() - 1);
        const times = [...first, ...fireTimesBetween(timingOf(s), from, cutoff, UPCOMING_MAX - first.length)];
        for (const at of times) {
          entries.push({
            scheduleId: Number(s.id),
            agentId: s.agentId,
            agentName: s.agent.name,
            scheduleName: s.name,
            nextRunTime: at,
            timezone: s.timezone,
            isEnabled: s.isEnabled,
          });
        }
        if (entries.length >= UPCOMING_MAX) {
          entries.sort((a, b) => a.nextRunTime.getTime() - b.nextRunTime.getTime() || a.scheduleId - b.scheduleId);
          entries.length = UPCOMING_MAX;
          cutoff = entries[UPCOMING_MAX - 1].nextRunTime;
        }
      }
      entries.sort((a, b) => a.nextRunTime.getTime() - b.nextRunTime.getTime() || a.scheduleId - b.scheduleId);
      return entries.slice(0, UPCOMING_MAX);
    },
  };
}
export type SchedulesService = ReturnType<typeof createSchedulesService>;
