// All Prisma access of the Agent Builder: sessions and their numbered events. A change of state
// runs in a transaction that holds the session row (FOR UPDATE), so a stop, a finish and the worker
// never act on a status another of them has just changed, and event numbers never clash.
import type { Db, Tx } from '../../db/prisma.js';
import { type Prisma } from '../../generated/prisma/client.js';

export type SessionRow = Awaited<ReturnType<Db['agentBuilderSession']['findUnique']>> & {};
export interface NewEvent {
  type: string;
  message: string;
  data?: Prisma.InputJsonValue;
}

export function createBuilderRepository(db: Db) {
  async function appendEvent(tx: Tx, sessionId: string, event: NewEvent, at: Date): Promise<number> {
    const [{ next }] = await tx.$queryRaw<Array<{ next: number }>>`
      SELECT COALESCE(MAX("index"), 0)::int + 1 AS next FROM "AgentBuilderEvent" WHERE "sessionId" = ${sessionId}`;
    await tx.agentBuilderEvent.create({
      data: {
        sessionId,
        index: next,
        type: event.type,
        message: event.message,
        ...(event.data !== undefined ? { data: event.data } : {}),
        created: at,
      },
    });
    return next;
  }

  return {
    async create(
      session: {
        id: string;
        organizationId: number;
        userId: number;
        spaceId: number | null;
        prompt: string;
        url: string;
        mode: string;
        proxyPoolId: number | null;
        at: Date;
      },
      first: NewEvent,
    ): Promise<void> {
      await db.$transaction(async (tx) => {
        await tx.agentBuilderSession.create({
          data: {
            id: session.id,
            organizationId: session.organizationId,
            userId: session.userId,
            spaceId: session.spaceId,
            prompt: session.prompt,
            url: session.url,
            mode: session.mode,
            proxyPoolId: session.proxyPoolId,
            status: 'processing',
            step: 1,
            created: session.at,
            updated: session.at,
          },
        });
        await appendEvent(tx, session.id, first, session.at);
      });
    },

    find(id: string) {
      return db.agentBuilderSession.findUnique({ where: { id } });
    },

    findProxyPool(id: number) {
      return db.proxyPool.findUnique({ where: { id } });
    },

    eventsAfter(sessionId: string, index: number) {
      return db.agentBuilderEvent.findMany({
        where: { sessionId, index: { gt: index } },
        orderBy: { index: 'asc' },
        take: 500,
      });
    },

    /** Message of the latest event of a type (the refinement a step works on). */
    latestEvent(sessionId: string, type: string) {
      return db.agentBuilderEvent.findFirst({ where: { sessionId, type }, orderBy: { index: 'desc' } });
    },

    /**
     * Runs `fn` with the session row locked; null when there is no such session. `fn` returns the
     * change to apply (or null for none) and the events to append, both inside the same transaction.
     */
    async withLocked<T>(
      id: string,
      at: Date,
      fn: (row: SessionRow) => {
        data?: Prisma.AgentBuilderSessionUpdateInput;
        events?: NewEvent[];
        /** More writes in the same transaction, given the changed row (the webhook outbox). */
        after?: (tx: Tx, row: SessionRow) => Promise<void>;
        result: T;
      },
    ): Promise<T | null> {
      return db.$transaction(async (tx) => {
        const locked = await tx.$queryRaw<
          Array<{ id: string }>
        >`SELECT id FROM "AgentBuilderSession" WHERE id = ${id} FOR UPDATE`;
        if (locked.length === 0) return null;
        const row = (await tx.agentBuilderSession.findUnique({ where: { id } })) as SessionRow;
        const { data, events, after, result } = fn(row);
        const changed = data
          ? await tx.agentBuilderSession.update({ where: { id }, data: { ...data, updated: at } })
          : row;
        for (const event of events ?? []) await appendEvent(tx, id, event, at);
        if (after) await after(tx, changed);
        return result;
      });
    },

    /** Deletes sessions (and their events) untouched since `cutoff`. */
    purgeUpdatedBefore(cutoff: Date) {
      return db.agentBuilderSession.deleteMany({ where: { updated: { lt: cutoff } } });
    },
  };
}
export type BuilderRepository = ReturnType<typeof createBuilderRepository>;
