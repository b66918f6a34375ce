// All Prisma access of webhooks: subscriptions, the outbox (WebhookEvent), deliveries and attempts.
import type { Db, Tx } from '../../db/prisma.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { AttemptResult } from './sender.js';

export type WebhookRow = Awaited<ReturnType<Db['webhook']['findUniqueOrThrow']>>;
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookInput {
  url: string;
  description: string;
  eventTypes: string[];
  agentId: number | null;
  spaceId: number | null;
  enabled: boolean;
}

export interface OutboxEvent {
  organizationId: number;
  type: string;
  runId?: number | null;
  agentId?: number | null;
  spaceId?: number | null;
  data?: unknown;
}

/** Due deliveries found per relay pass; the rest wait for the next one. */
const DUE_BATCH = 500;

export function createWebhooksRepository(db: Db) {
  return {
    create(organizationId: number, input: WebhookInput, secretSealed: string) {
      return db.webhook.create({ data: { organizationId, ...input, secretSealed } });
    },
    list(organizationId: number) {
      return db.webhook.findMany({ where: { organizationId }, orderBy: { id: 'asc' } });
    },
    find(organizationId: number, id: number) {
      return db.webhook.findFirst({ where: { id, organizationId } });
    },
    async update(organizationId: number, id: number, input: WebhookInput): Promise<WebhookRow | null> {
      // Enabling again clears the reason the service disabled it, and the failing streak.
      const rows = await db.webhook.updateManyAndReturn({
        where: { id, organizationId },
        data: { ...input, ...(input.enabled ? { disabledReason: null, failingSince: null } : {}) },
      });
      return rows[0] ?? null;
    },
    async remove(organizationId: number, id: number): Promise<boolean> {
      return (await db.webhook.deleteMany({ where: { id, organizationId } })).count > 0;
    },
    /** The new secret signs from now on; the current one keeps signing until `previousUntil`. */
    async rotate(organizationId: number, id: number, secretSealed: string, previousUntil: Date): Promise<boolean> {
      const n = await db.$executeRaw`
        UPDATE "Webhook" SET "previousSecretSealed" = "secretSealed", "previousSecretUntil" = ${previousUntil.toISOString()}::timestamp,
          "secretSealed" = ${secretSealed}, updated = now()
        WHERE id = ${id} AND "organizationId" = ${organizationId}`;
      return n > 0;
    },

    /** Whether the Agent and Space filters name things of this organization. */
    async filtersBelongTo(
      organizationId: number,
      f: { agentId: number | null; spaceId: number | null },
    ): Promise<{ agent: boolean; space: boolean }> {
      const [agent, space] = await Promise.all([
        f.agentId === null ? 1 : db.agent.count({ where: { id: f.agentId, organizationId } }),
        f.spaceId === null ? 1 : db.space.count({ where: { id: f.spaceId, organizationId } }),
      ]);
      return { agent: agent > 0, space: space > 0 };
    },

    /**
     * An outbox row, inside the caller's transaction, only when the organization has an enabled
     * subscription. `agentId`/`spaceId`: what subscription filters match for events not about a Run.
     */
    async insertEvent(tx: Tx, e: OutboxEvent): Promise<void> {
      await tx.$executeRaw`
        INSERT INTO "WebhookEvent" ("organizationId", type, "runId", "agentId", "spaceId", data)
        SELECT ${e.organizationId}, ${e.type}, ${e.runId ?? null}::int, ${e.agentId ?? null}::int, ${e.spaceId ?? null}::int,
          ${e.data === undefined ? null : JSON.stringify(e.data)}::jsonb
        WHERE EXISTS (SELECT 1 FROM "Webhook" WHERE "organizationId" = ${e.organizationId} AND enabled)`;
    },

    /**
     * A settled Run's events, in the transaction that settles it: its terminal event (`type`, when it
     * has one) and credits.low when that settlement's debit took the balance from at or above the
     * organization's threshold to below it, so credits.low fires once per crossing (the next debit
     * starts below). Before the debit the balance was the one after plus what the grants covered (the
     * Usage entries); after it, the lowest balance the debit's entries record. One statement, as the
     * organization's debit lock is held until the commit.
     */
    /** SQL: whether the organization (an SQL value) has an enabled webhook; the events' own statement checks again. */
    hookedSql(organizationId: Prisma.Sql): Prisma.Sql {
      return Prisma.sql`EXISTS (SELECT 1 FROM "Webhook" WHERE "organizationId" = ${organizationId} AND enabled)`;
    },

    insertSettlementEventsSql(d: {
      organizationId: number;
      runId: number;
      type: string | null;
      defaultThreshold: string;
    }): Prisma.Sql {
      return Prisma.sql`
        WITH hooked AS (
          SELECT EXISTS (SELECT 1 FROM "Webhook" WHERE "organizationId" = ${d.organizationId} AND enabled) AS yes),
        run_event AS (
          INSERT INTO "WebhookEvent" ("organizationId", type, "runId")
          SELECT ${d.organizationId}, ${d.type}::text, ${d.runId}::int FROM hooked WHERE yes AND ${d.type}::text IS NOT NULL)
        INSERT INTO "WebhookEvent" ("organizationId", type, data)
        SELECT o.id, 'credits.low', jsonb_build_object('organizationId', o.id, 'threshold', th.v,
          'balance', x.after, 'previousBalance', x.after + x.covered, 'runId', ${d.runId}::int)
        FROM hooked, "Organization" o
        CROSS JOIN LATERAL (SELECT COALESCE(o."creditsLowThreshold", ${d.defaultThreshold}::numeric) AS v) th
        CROSS JOIN LATERAL (
          SELECT MIN(balance) AS after, COALESCE(-SUM(amount) FILTER (WHERE "transactionType" = 'Usage'), 0) AS covered
          FROM "CreditTransaction"
          WHERE "runId" = ${d.runId}::int AND "transactionType" IN ('Usage', 'Uncovered')) x
        WHERE hooked.yes AND o.id = ${d.organizationId} AND x.after IS NOT NULL
          AND x.after < th.v AND x.after + x.covered >= th.v`;
    },

    /**
     * The relay's claim: up to `limit` unrelayed events, locked (SKIP LOCKED, so concurrent relays take
     * different rows), handed to `enqueue`, then marked relayed in the same transaction. A crash after
     * enqueue and before commit leaves them unrelayed: the next pass enqueues them again under the same
     * job ids, which BullMQ ignores.
     */
    async relay(limit: number, enqueue: (eventIds: number[]) => Promise<void>): Promise<number> {
      return db.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<Array<{ id: number }>>`
          SELECT id FROM "WebhookEvent" WHERE "relayedAt" IS NULL ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => r.id);
        await enqueue(ids);
        await tx.$executeRaw`UPDATE "WebhookEvent" SET "relayedAt" = now() WHERE id = ANY(${ids}::int[])`;
        return ids.length;
      });
    },

    findEvent(id: number) {
      return db.webhookEvent.findUnique({ where: { id } });
    },
    /** Fixes an event's payload once; returns the one stored (the first writer's). */
    async fixPayload(id: number, payload: object): Promise<unknown> {
      await db.$executeRaw`UPDATE "WebhookEvent" SET payload = ${JSON.stringify(payload)}::jsonb WHERE id = ${id} AND payload IS NULL`;
      return (await db.webhookEvent.findUniqueOrThrow({ where: { id }, select: { payload: true } })).payload;
    },
    findRunForEvent(runId: number) {
      return db.run.findUnique({
        where: { id: runId },
        include: { agent: { select: { spaceId: true } }, files: { orderBy: { id: 'asc' } } },
      });
    },
    enabledSubscriptions(organizationId: number) {
      return db.webhook.findMany({ where: { organizationId, enabled: true } });
    },
    /** One delivery per (subscription, event), due now; existing ones are left as they are. */
    async createDeliveries(eventId: number, webhookIds: number[], at: Date): Promise<void> {
      if (webhookIds.length === 0) return;
      await db.webhookDelivery.createMany({
        data: webhookIds.map((webhookId) => ({ webhookId, eventId, nextAttemptAt: at })),
        skipDuplicates: true,
      });
    },
    /** Pending deliveries due by `at`, with the attempt each one is at next. */
    async dueDeliveries(at: Date, eventId?: number): Promise<Array<{ id: number; attempt: number }>> {
      const rows = await db.webhookDelivery.findMany({
        where: { status: 'pending', nextAttemptAt: { lte: at }, ...(eventId !== undefined ? { eventId } : {}) },
        select: { id: true, attemptCount: true },
        orderBy: { nextAttemptAt: 'asc' },
        take: DUE_BATCH,
      });
      return rows.map((r) => ({ id: r.id, attempt: r.attemptCount + 1 }));
    },
    findDelivery(id: number) {
      return db.webhookDelivery.findUnique({ where: { id }, include: { webhook: true, event: true } });
    },

    /**
     * Records attempt `attempt` and the delivery's new state in one transaction. The attempt's unique
     * key makes a second recording of the same attempt (a job run twice) fail instead of counting twice.
     */
    async recordAttempt(
      deliveryId: number,
      attempt: number,
      at: Date,
      result: AttemptResult,
      next: { status: DeliveryStatus; nextAttemptAt: Date | null; finalReason: string | null },
    ): Promise<void> {
      await db.$transaction([
        db.webhookAttempt.create({
          data: {
            deliveryId,
            attempt,
            at,
            statusCode: result.statusCode,
            durationMs: result.durationMs,
            responseBody: result.responseBody,
            error: result.error,
            errorCode: result.errorCode,
          },
        }),
        db.webhookDelivery.update({ where: { id: deliveryId }, data: { attemptCount: attempt, ...next } }),
      ]);
    },
    /** A success ends the subscription's failing streak. */
    async markHealthy(webhookId: number): Promise<void> {
      await db.webhook.updateMany({
        where: { id: webhookId, failingSince: { not: null } },
        data: { failingSince: null },
      });
    },
    /** Starts the failing streak at `at` unless one is running; returns the streak's start. */
    async markFailing(webhookId: number, at: Date): Promise<Date | null> {
      const rows = await db.$queryRaw<Array<{ failingSince: Date }>>`
        UPDATE "Webhook" SET "failingSince" = COALESCE("failingSince", ${at.toISOString()}::timestamp)
        WHERE id = ${webhookId} RETURNING "failingSince"`;
      return rows[0]?.failingSince ?? null;
    },
    async disable(webhookId: number, reason: string): Promise<void> {
      await db.webhook.updateMany({
        where: { id: webhookId, enabled: true },
        data: { enabled: false, disabledReason: reason },
      });
    },

    async listDeliveries(webhookId: number, skip: number, take: number) {
      const [total, rows] = await Promise.all([
        db.webhookDelivery.count({ where: { webhookId } }),
        db.webhookDelivery.findMany({
          where: { webhookId },
          orderBy: { id: 'desc' },
          skip,
          take,
          include: { event: { select: { id: true, type: true } }, attempts: { orderBy: { attempt: 'asc' } } },
        }),
      ]);
      return { total, rows };
    },
    /** A finished delivery goes back to pending, due now; false when it is not finished (or not there). */
    async reopen(webhookId: number, deliveryId: number, at: Date): Promise<'reopened' | 'pending' | 'missing'> {
      const n = await db.webhookDelivery.updateMany({
        where: { id: deliveryId, webhookId, status: { in: ['succeeded', 'failed'] } },
        data: { status: 'pending', nextAttemptAt: at, finalReason: null },
      });
      if (n.count > 0) return 'reopened';
      return (await db.webhookDelivery.count({ where: { id: deliveryId, webhookId } })) > 0 ? 'pending' : 'missing';
    },
    /** The `webhook.test` event and its delivery, written by the API before its one attempt. */
    async createTestDelivery(organizationId: number, webhookId: number, payload: object, at: Date) {
      return db.$transaction(async (tx) => {
        const event = await tx.webhookEvent.create({
          data: { organizationId, type: 'webhook.test', payload, relayedAt: at },
        });
        const delivery = await tx.webhookDelivery.create({ data: { webhookId, eventId: event.id } });
        return { eventId: event.id, deliveryId: delivery.id };
      });
    },

    /** Maintenance: finished deliveries created before `before`, then relayed events left without any. */
    async purge(before: Date): Promise<number> {
      const d = await db.webhookDelivery.deleteMany({
        where: { created: { lt: before }, status: { in: ['succeeded', 'failed'] } },
      });
      await db.webhookEvent.deleteMany({
        where: { created: { lt: before }, relayedAt: { not: null }, deliveries: { none: {} } },
      });
      return d.count;
    },
  };
}
export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
