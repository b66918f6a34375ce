// Billing: the settlement step that meters a terminal Run and debits its cost from the organization's
// grants, the recording of grant expiries, and the billing reports (docs/api-contract.md §6).
import type { AgentRunsCostQueryInput, AgentsCostQueryInput } from '../../schemas/billing.js';
import { MAX_RECORDS_PER_PAGE, pageOf } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { ValidationError } from '../../lib/errors.js';
import { utcDayBuckets } from '../../lib/query-dates.js';
import { recordCreditsDebited } from '../../lib/metrics.js';
import type { AccessService } from '../access/access.service.js';
import { requireAdmin } from '../identity/api-keys.service.js';
import type { Principal } from '../identity/principal.js';
import type { SettlementStep } from '../settlement/settlement.service.js';
import type { LowCreditsAlertInput } from '../../schemas/billing.js';
import type { CreditsRepository } from './credits.repository.js';
import { Decimal, meterRun, parseUsageTypes, totalCost, type Prices, type UsageType } from './metering.js';
import { splitForRollups } from '../../lib/rollup-periods.js';
import { bucketLabel, bucketLabels, inclusiveEnd, parseRange, parseSort, parseTimeUnit } from './report-range.js';
import type { UsageRepository } from './usage.repository.js';

export const HISTORY_MAX_PER_PAGE = 100;
export const AGENTS_MAX_PER_PAGE = MAX_RECORDS_PER_PAGE;
const SPENDING_DEFAULT_DAYS = 30;

const num = (d: Decimal) => d.toNumber();

function usageTypesOrThrow(value: string | undefined): UsageType[] {
  const types = parseUsageTypes(value);
  if (!types)
    throw new ValidationError(
      `querystring.usageTypes must be a comma-separated list of: Server Time, Export GB, Agent Inputs, Proxy Data, Export CPM; got '${value}'.`,
    );
  return types;
}

export interface BillingDeps {
  credits: CreditsRepository;
  usage: UsageRepository;
  access: Pick<AccessService, 'requireAgent' | 'readableSpaceIds'>;
  clock: Clock;
  prices: Prices;
  /** CREDITS_LOW_THRESHOLD: the credits.low threshold of organizations that set none. */
  lowCreditsDefault: string;
}

/**
 * The settlement step (registered after analytics' in src/services/settlement/index.ts): inside the claiming
 * transaction, writes the Run's usage records and rollups, then takes the cost from the
 * organization's grants; what no grant covers is recorded as an Uncovered transaction.
 */
export function createBillingSettlementStep(deps: Pick<BillingDeps, 'credits' | 'usage' | 'prices'>): SettlementStep {
  const { credits, usage, prices } = deps;
  return {
    name: 'billing',
    // The statement that claims the Run reads its export bytes (no round trip of its own).
    atClaim: (claimed) => ({ read: usage.exportBytesSql(claimed.column('id')) }),
    // A Run ending with its files listed: they are all its files (a retry writes the same keys).
    predictRead: (_run, files) => (files ? { value: usage.exportBytesOf(files) } : undefined),
    apply(run, at, exportBytes) {
      const lines = meterRun(run, BigInt(exportBytes as bigint), prices);
      if (lines.length === 0) return;
      const cost = totalCost(lines);
      if (cost.isZero()) return { statement: usage.recordSql(run, lines, at) };
      // Debits of one organization are serialized by its row lock, so the time it is held bounds
      // their throughput: taken by the statement just before this one (usage and debit), in the round
      // trip that also carries the later steps' statements and the COMMIT, it is held for no round trip.
      const summary = lines.map((l) => `${l.usageType} ${l.quantity.toString()}`).join(', ');
      return {
        before: credits.debitLock(run.organizationId),
        statement: usage.recordSql(
          run,
          lines,
          at,
          credits.debitSql({
            organizationId: run.organizationId,
            runId: run.id,
            cost,
            at,
            message: `Run ${run.id} of agent ${run.agentId}: ${summary}`,
            uncoveredMessage: `Run ${run.id} of agent ${run.agentId}: {uncovered} of its cost ${cost.toString()} exceeded the available credits`,
          }),
        ),
        afterCommit: () => recordCreditsDebited(cost.toNumber()),
      };
    },
  };
}

/** The maintenance task: records the expiry of every grant whose expiresAt has passed. */
export function createCreditExpiry(deps: Pick<BillingDeps, 'credits' | 'clock'>) {
  return {
    async expireGrants(): Promise<{ organizations: number; expired: number }> {
      const at = deps.clock.now();
      const orgs = await deps.credits.organizationsWithDueExpiries(at);
      let expired = 0;
      for (const org of orgs) expired += await deps.credits.expireDue(org, at);
      return { organizations: orgs.length, expired };
    },
  };
}
export type CreditExpiry = ReturnType<typeof createCreditExpiry>;

export function createBillingService(deps: BillingDeps) {
  const { credits, usage, access, clock } = deps;

  async function lowCreditsAlert(organizationId: number) {
    const own = await credits.lowThreshold(organizationId);
    return { threshold: num(own ?? new Decimal(deps.lowCreditsDefault)), isDefault: own === null, organizationId };
  }

  return {
    async credits(principal: Principal) {
      const at = clock.now();
      return {
        availableCredits: num(await credits.balanceDecimal(principal.organizationId, at)),
        organizationId: principal.organizationId,
        retrievedAt: at,
      };
    },

    /** The credits.low threshold (organization admins only). */
    async lowCreditsAlert(principal: Principal) {
      requireAdmin(principal);
      return lowCreditsAlert(principal.organizationId);
    },
    async setLowCreditsAlert(principal: Principal, body: LowCreditsAlertInput) {
      requireAdmin(principal);
      const t = body.threshold;
      if (t !== null && !/^\d{1,12}(\.\d{1,6})?$/.test(String(t)))
        throw new ValidationError(
          `body.threshold must be a non-negative number with at most 6 decimal places, got ${t}.`,
        );
      await credits.setLowThreshold(principal.organizationId, t === null ? null : new Decimal(String(t)));
      return lowCreditsAlert(principal.organizationId);
    },

    async history(principal: Principal, q: { pageIndex?: number; recordsPerPage?: number }) {
      const page = pageOf(q, HISTORY_MAX_PER_PAGE);
      const { rows, total } = await credits.history(principal.organizationId, {
        offset: page.skip,
        limit: page.recordsPerPage,
      });
      return {
        transactions: rows.map((t) => ({
          id: t.id,
          transactionType: t.transactionType,
          amount: num(t.amount),
          balance: num(t.balance),
          created: t.created,
          expiresAt: t.expiresAt,
          message: t.message,
        })),
        totalCount: total,
        pageIndex: page.pageIndex,
        recordsPerPage: page.recordsPerPage,
      };
    },

    async spending(principal: Principal, q: { startDate?: string; endDate?: string; groupBy?: 'day' }) {
      const now = clock.now();
      const range = parseRange(q.startDate, q.endDate, {
        start: new Date(now.getTime() - SPENDING_DEFAULT_DAYS * 86_400_000),
        end: now,
      });
      const days = q.groupBy === 'day' ? utcDayBuckets(range) : undefined;
      const spentIn = (from: Date, to: Date) => credits.spent(principal.organizationId, from, to);
      const [spent, balance, perDay] = await Promise.all([
        spentIn(range.start, range.end),
        credits.balanceDecimal(principal.organizationId, now),
        days ? Promise.all(days.map((d) => spentIn(d.start, d.end))) : undefined,
      ]);
      return {
        totalSpent: num(spent),
        startDate: range.start,
        endDate: inclusiveEnd(range),
        organizationId: principal.organizationId,
        currentBalance: num(balance),
        ...(days && perDay ? { days: days.map((d, i) => ({ date: d.date, totalSpent: num(perDay[i]) })) } : {}),
      };
    },

    async agents(principal: Principal, q: AgentsCostQueryInput) {
      const range = parseRange(q.startDate, q.endDate);
      const usageTypes = usageTypesOrThrow(q.usageTypes);
      const column = parseSort(q.sortColumn, ['name', 'cost'] as const, 'name');
      const page = pageOf(q, AGENTS_MAX_PER_PAGE);
      const readable = await access.readableSpaceIds(principal);
      const report = await usage.agentsReport({
        organizationId: principal.organizationId,
        spaceIds: readable === 'all' ? null : readable,
        name: q.name && q.name.trim() !== '' ? q.name.trim() : null,
        usageTypes,
        parts: splitForRollups(range, ['week', 'day', 'hour']),
        sort: { column, descending: q.sortOrder === 1 },
        page: { offset: page.skip, limit: page.recordsPerPage },
      });
      return {
        agents: report.rows.map((r) => ({
          agentId: r.agentId,
          agentName: r.agentName,
          cost: num(new Decimal(r.cost)),
          spaceId: r.spaceId,
        })),
        totalRecordCount: report.total,
        totalCost: num(report.totalCost),
        startDate: range.start,
        endDate: inclusiveEnd(range),
      };
    },

    async agentBreakdown(
      principal: Principal,
      agentId: number,
      q: { startDate?: string; endDate?: string; timeUnit?: string; usageTypes?: string },
    ) {
      const range = parseRange(q.startDate, q.endDate);
      const unit = parseTimeUnit(q.timeUnit);
      const usageTypes = usageTypesOrThrow(q.usageTypes);
      const labels = bucketLabels(range, unit);
      const agent = await access.requireAgent(principal, agentId, 'read');
      const index = new Map(labels.map((l, i) => [l, i]));
      const series = new Map(usageTypes.map((t) => [t, labels.map(() => new Decimal(0))]));
      for (const row of await usage.costByDay(agentId, range.start, range.end, usageTypes)) {
        const i = index.get(bucketLabel(new Date(row.day), unit));
        const data = series.get(row.usageType);
        if (i !== undefined && data) data[i] = data[i].plus(new Decimal(row.cost));
      }
      const types = usageTypes.map((type) => {
        const data = series.get(type)!;
        return { type, data: data.map(num), totalCost: num(totalCost(data.map((cost) => ({ cost })))) };
      });
      const total = usageTypes.reduce(
        (sum, t) => sum.plus(totalCost(series.get(t)!.map((cost) => ({ cost })))),
        new Decimal(0),
      );
      return {
        agentId,
        agentName: agent.name,
        labels,
        usageTypes: types,
        totalCost: num(total),
        startDate: range.start,
        endDate: inclusiveEnd(range),
      };
    },

    async agentRuns(principal: Principal, agentId: number, q: AgentRunsCostQueryInput) {
      const range = parseRange(q.startDate, q.endDate);
      const usageTypes = usageTypesOrThrow(q.usageTypes);
      const column = parseSort(q.sortColumn, ['date', 'cost', 'duration'] as const, 'date');
      const page = pageOf(q, AGENTS_MAX_PER_PAGE);
      const agent = await access.requireAgent(principal, agentId, 'read');
      const report = await usage.runsReport({
        agentId,
        from: range.start,
        to: range.end,
        usageTypes,
        // Newest first unless sortOrder says otherwise.
        sort: { column, descending: q.sortOrder === undefined ? column === 'date' : q.sortOrder === 1 },
        page: { offset: page.skip, limit: page.recordsPerPage },
      });
      const uncovered = await credits.runsWithUncovered(report.rows.map((r) => r.runId));
      return {
        runs: report.rows.map((r) => ({
          runId: r.runId,
          date: r.date,
          startTime: r.startTime,
          endTime: r.endTime,
          cost: num(new Decimal(r.cost)),
          billingType: uncovered.has(r.runId) ? 'Uncovered' : 'Credits',
        })),
        totalRecordCount: report.total,
        totalCost: num(report.totalCost),
        agentId,
        agentName: agent.name,
      };
    },
  };
}
export type BillingService = ReturnType<typeof createBillingService>;
