// Firing: the worker's tick turns due Schedules into Runs. PostgreSQL is the source of truth: one
// transaction claims a batch of due Schedules (FOR UPDATE SKIP LOCKED, so concurrent ticks of
// several workers split the work), creates one Run per Schedule for its due fire time and advances
// nextRunTime. The unique (scheduleId, scheduledFor) key of Run makes a second Run for the same fire
// time impossible. Only after the commit are the Runs' jobs enqueued (deterministic job ids), so
// a crash between the two leaves Queuing Runs that the Run reconciler re-queues.
// A Schedule whose fire times were missed (workers down) runs once for the earliest missed time,
// logs how many were missed, puts a `schedule.missed` webhook event in the outbox (same transaction),
// and continues from the next future time.
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import { recordScheduleFireLag } from '../../lib/metrics.js';
import { ValidationStatus } from '../agents/agent-definition.js';
import type { RunRow, RunsRepository } from '../runs/runs.repository.js';
import { RunStatus } from '../runs/status-machine.js';
import { fireTimesBetween, nextFireAfter, ScheduleType } from './schedule-time.js';
import type { ScheduleMissedData } from '../../schemas/webhook-events.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import { timingOf } from './schedule-timing.js';
import { toScheduleView } from './schedules.service.js';
import type { FiringAgent, ScheduleRow, SchedulesRepository } from './schedules.repository.js';

/** Missed fire times are counted up to this many (then logged as "at least"). */
const MISSED_COUNT_CAP = 1000;
/** One tick stops after this many batches, so a huge backlog cannot hold a job for ever. */
const MAX_BATCHES_PER_TICK = 100;

export interface TickResult {
  claimed: number;
  queued: number;
  skipped: number;
}

export function createScheduleFiring(deps: {
  repo: SchedulesRepository;
  runs: Pick<RunsRepository, 'createRuns' | 'afterCommit'>;
  credits: { balance(organizationId: number, at: Date): Promise<number> };
  scheduler: { enqueueNewRuns(runs: Array<{ id: number; serverGroupId: number | null }>): Promise<void> };
  /** The webhook outbox (schedule.missed). */
  outbox: Pick<WebhooksRepository, 'insertEvent'>;
  clock: Clock;
  log: Pick<Logger, 'info' | 'warn'>;
  batchSize: number;
}) {
  const { repo, runs, credits, scheduler, outbox, clock, log, batchSize } = deps;

  /** Why a fire cannot execute, recorded on a Skipped Run so the user sees it (null: it can run). */
  function refusal(agent: FiringAgent, balance: number): string | null {
    if (agent.version === null) return 'Skipped: the Agent has no definition.';
    if (agent.validationStatus === ValidationStatus.Invalid)
      return 'Skipped: the Agent has an invalid definition; fix it for its Schedules to run.';
    if (balance <= 0) return 'Skipped: the organization has no credits left.';
    return null;
  }

  function runOf(s: ScheduleRow, agent: FiringAgent, fireAt: Date) {
    const parallelism = s.parallelism ?? 1;
    return {
      organizationId: s.organizationId,
      agentId: s.agentId,
      agentVersion: agent.version ?? 0,
      startedBy: `schedule ${s.id}${s.name ? ` (${s.name})` : ''}`,
      startedByUserId: null,
      scheduleId: s.id,
      scheduledFor: fireAt,
      parallelism,
      parallelMaxConcurrency: s.parallelMaxConcurrency ?? Math.max(1, parallelism),
      parallelExport: s.parallelExport,
      proxyPoolId: s.proxyPoolId ?? agent.proxyPoolId,
      serverGroupId: s.serverGroupId,
      logLevel: s.logLevel,
      logMode: s.logMode,
      isExclusive: s.isExclusive,
      isWaitOnFailure: s.isWaitOnFailure,
      timeoutSeconds: agent.timeoutSeconds,
      // Stored in the Run's own format already: `?name` values sealed, the rest as sent.
      inputParameters: s.inputParameters,
    };
  }

  /** One transaction: claim a batch, create its Runs, advance the Schedules; then settle Skipped Runs. */
  async function fireBatch(): Promise<TickResult & { queuedRuns: RunRow[] }> {
    const now = clock.now();
    const balances = new Map<number, number>();
    const created = await repo.transaction(
      async (tx) => {
        const due = await repo.claimDue(now, batchSize, tx);
        // A fire time that already has its Run (the unique key held) is done: only advance past it.
        const done = await repo.firedAlready(
          due.map((s) => ({ scheduleId: s.id, at: s.nextRunTime! })),
          tx,
        );
        const agents = await repo.firingAgents([...new Set(due.map((s) => s.agentId))], tx);
        for (const orgId of new Set(due.map((s) => s.organizationId))) {
          if (!balances.has(orgId)) balances.set(orgId, await credits.balance(orgId, now));
        }
        // In fire-time order per Agent, so exclusivity within a batch follows the order of the fires.
        due.sort((a, b) => a.agentId - b.agentId || a.nextRunTime!.getTime() - b.nextRunTime!.getTime());
        const toCreate: Array<{ run: ReturnType<typeof runOf>; skipReason?: string }> = [];
        const advanced: Array<{ id: bigint; nextRunTime: Date | null; isEnabled: boolean; lastFired: Date }> = [];
        const missedOf: Array<{ s: ScheduleRow; next: Date | null; isEnabled: boolean; missed: number }> = [];
        for (const s of due) {
          const fireAt = s.nextRunTime!;
          const t = timingOf(s);
          const next = s.scheduleType === ScheduleType.RunOnce ? null : nextFireAfter(t, now);
          const missed = fireTimesBetween(t, fireAt, now, MISSED_COUNT_CAP).length;
          if (missed > 0) {
            log.warn(
              {
                scheduleId: String(s.id),
                agentId: s.agentId,
                dueAt: fireAt,
                missed,
                capped: missed >= MISSED_COUNT_CAP,
              },
              'schedule missed fire times while no worker was ticking; running once now',
            );
          }
          const agent = agents.get(s.agentId);
          if (agent && !agent.isArchived && !done.has(`${s.id}@${fireAt.getTime()}`)) {
            toCreate.push({
              run: runOf(s, agent, fireAt),
              skipReason: refusal(agent, balances.get(s.organizationId) ?? 0) ?? undefined,
            });
          }
          // RunOnce disables itself once fired; a Schedule without a next time has nothing left to do.
          const live = next !== null && agent !== undefined && !agent.isArchived;
          advanced.push({ id: s.id, nextRunTime: live ? next : null, isEnabled: live, lastFired: fireAt });
          if (missed > 0) missedOf.push({ s, next: live ? next : null, isEnabled: live, missed });
        }
        const out = await runs.createRuns(toCreate, now, tx);
        await repo.advance(advanced, now, tx);
        for (const m of missedOf) {
          const run = out.find((r) => r.scheduleId === m.s.id);
          const data: ScheduleMissedData = {
            ...toScheduleView({ ...m.s, nextRunTime: m.next, isEnabled: m.isEnabled, updated: now }),
            missed: {
              firstMissedAt: m.s.nextRunTime!,
              count: Math.min(m.missed, MISSED_COUNT_CAP),
              capped: m.missed >= MISSED_COUNT_CAP,
              runId: run?.id ?? null,
              detectedAt: now,
            },
          };
          await outbox.insertEvent(tx, {
            organizationId: m.s.organizationId,
            type: 'schedule.missed',
            agentId: m.s.agentId,
            spaceId: agents.get(m.s.agentId)?.spaceId ?? null,
            data,
          });
        }
        const lags = toCreate.map((c) => (now.getTime() - c.run.scheduledFor.getTime()) / 1000);
        return { claimed: due.length, runs: out, lags };
      },
      { timeout: 120_000 },
    );
    for (const lag of created.lags) recordScheduleFireLag(lag);
    for (const run of created.runs) await runs.afterCommit(run);
    const queued = created.runs.filter((r) => r.status === RunStatus.Queuing);
    return {
      claimed: created.claimed,
      queued: queued.length,
      skipped: created.runs.length - queued.length,
      queuedRuns: queued,
    };
  }

  return {
    /**
     * Fires every due Schedule, batch after batch, until none is left (bounded per tick). A batch's
     * jobs are enqueued while the next batch is claimed; the tick ends when all are enqueued.
     */
    async tick(): Promise<TickResult> {
      const total: TickResult = { claimed: 0, queued: 0, skipped: 0 };
      let enqueued: Promise<void> = Promise.resolve();
      try {
        for (let i = 0; i < MAX_BATCHES_PER_TICK; i++) {
          const b = await fireBatch();
          total.claimed += b.claimed;
          total.queued += b.queued;
          total.skipped += b.skipped;
          if (b.queuedRuns.length) {
            const jobs = b.queuedRuns.map((r) => ({ id: r.id, serverGroupId: r.serverGroupId }));
            enqueued = enqueued.then(() => scheduler.enqueueNewRuns(jobs));
            // Handled here so a failure waits for the `finally` below instead of ending the process.
            enqueued.catch(() => {});
          }
          if (b.claimed < batchSize) break;
        }
      } finally {
        // Failures reach BullMQ (the tick job fails); the Runs stay Queuing and the reconciler re-queues them.
        await enqueued;
      }
      if (total.claimed) log.info(total, 'schedules fired');
      return total;
    },
  };
}
export type ScheduleFiring = ReturnType<typeof createScheduleFiring>;
