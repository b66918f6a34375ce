// Webhooks: events delivered per second to a local receiver with 2 worker processes, and the time
// from the outbox commit to the first attempt's arrival (p50/p99), for a burst and for a trickle.
// Events are `webhook.test` rows committed straight into the outbox (what a Run's transaction writes),
// so the figures are the relay and delivery path alone. Then webhooks-cpu.ts: the added CPU per Run,
// webhooks on against off.
//
//   npm run bench -- webhooks            BENCH_WEBHOOK_EVENTS=2000 BENCH_WORKERS=2 npm run bench -- webhooks
import { performance } from 'node:perf_hooks';
import { createPrisma } from '../src/db/prisma.js';
import { seal } from '../src/lib/crypto.js';
import { bootstrapOrganization } from '../src/services/identity/bootstrap.js';
import { newWebhookSecret } from '../src/services/webhooks/signing.js';
import { startReceiver } from '../test/helpers/webhook-receiver.js';
import { waitFor } from '../test/helpers/process.js';
import { createBenchEnvironment, fmt, note, percentile, print, startWorkerProcess, table } from './helpers.js';
import { benchWebhooksCpu } from './webhooks-cpu.js';

export async function benchWebhooks(): Promise<void> {
  const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
  const trickle = Number(process.env.BENCH_WEBHOOK_TRICKLE ?? 100);
  const workers = Number(process.env.BENCH_WORKERS ?? 2);
  const env = await createBenchEnvironment();
  const db = createPrisma(env.config.databaseUrl, { max: 4 });
  const receiver = await startReceiver();
  const arrived = new Map<string, number>();
  const started = performance.timeOrigin;
  const procs = [];
  try {
    const org = await bootstrapOrganization(db, {
      org: 'Bench',
      email: 'bench@example.com',
      password: 'correct horse battery',
      credits: 0,
      apiKeyDays: 1,
      now: new Date(),
    });
    await db.webhook.create({
      data: {
        organizationId: org.organizationId,
        url: receiver.url('/hook'),
        eventTypes: ['*'],
        secretSealed: seal(env.config.encryptionKey, newWebhookSecret()),
      },
    });
    for (let i = 0; i < workers; i += 1) procs.push(await startWorkerProcess(env.env));
    const seen = () => {
      for (const r of receiver.received)
        if (!arrived.has(r.headers['webhook-id'])) arrived.set(r.headers['webhook-id'], r.at);
      return arrived.size;
    };
    const insert = async (n: number) => {
      const rows = await db.$transaction(async (tx) => {
        const created = await tx.webhookEvent.createManyAndReturn({
          data: Array.from({ length: n }, (_, i) => ({
            organizationId: org.organizationId,
            type: 'webhook.test',
            data: { i },
          })),
          select: { id: true },
        });
        return created;
      });
      const at = Date.now();
      return rows.map((r) => ({ id: `evt_${r.id}`, at }));
    };

    note(`burst: ${events} events committed at once, ${workers} worker processes`);
    const t0 = Date.now();
    const burst = await insert(events);
    await waitFor(async () => seen() >= events, 600_000, 20);
    const burstSeconds = (Math.max(...burst.map((e) => arrived.get(e.id)!)) - t0) / 1000;
    const burstLat = burst.map((e) => arrived.get(e.id)! - e.at);

    note(`trickle: ${trickle} events, one every 50 ms`);
    const single: Array<{ id: string; at: number }> = [];
    for (let i = 0; i < trickle; i += 1) {
      single.push(...(await insert(1)));
      await new Promise((r) => setTimeout(r, 50));
    }
    await waitFor(async () => seen() >= events + trickle, 120_000, 20);
    const trickleLat = single.map((e) => arrived.get(e.id)! - e.at);
    const within2s = trickleLat.filter((l) => l <= 2000).length / trickleLat.length;
    // Where a trickle event's time goes, from the rows' own timestamps (database clock).
    const steps = await db.$queryRaw<Array<{ relay: number; fanout: number; attempt: number }>>`
      SELECT EXTRACT(EPOCH FROM e."relayedAt" - e.created) * 1000 AS relay,
             EXTRACT(EPOCH FROM d.created - e."relayedAt") * 1000 AS fanout,
             EXTRACT(EPOCH FROM a.at - d.created) * 1000 AS attempt
      FROM "WebhookEvent" e JOIN "WebhookDelivery" d ON d."eventId" = e.id
      JOIN "WebhookAttempt" a ON a."deliveryId" = d.id AND a.attempt = 1
      WHERE e.id = ANY(${single.map((e) => Number(e.id.slice(4)))}::int[])`;
    const stepP50 = (k: 'relay' | 'fanout' | 'attempt') =>
      fmt(
        percentile(
          steps.map((r) => Number(r[k])),
          50,
        ),
        0,
      );

    print(
      table(
        `Webhooks: ${workers} worker processes, receiver on 127.0.0.1 (${Math.round((Date.now() - started) / 1000)} s total)`,
        ['measure', 'value'],
        [
          ['burst: events delivered per second', fmt(events / burstSeconds)],
          [
            'burst: commit to first attempt p50 / p99 (ms)',
            `${fmt(percentile(burstLat, 50), 0)} / ${fmt(percentile(burstLat, 99), 0)}`,
          ],
          [
            'trickle: commit to first attempt p50 / p99 (ms)',
            `${fmt(percentile(trickleLat, 50), 0)} / ${fmt(percentile(trickleLat, 99), 0)}`,
          ],
          ['trickle: first attempts within 2 s', `${fmt(within2s * 100)} %`],
          [
            'trickle p50 (ms): commit to relayed / relayed to delivery row / row to attempt',
            `${stepP50('relay')} / ${stepP50('fanout')} / ${stepP50('attempt')}`,
          ],
          ['floor: relay interval (ms)', '500'],
        ],
      ),
    );
  } finally {
    for (const p of procs) await p.stop();
    await receiver.close();
    await db.$disconnect();
    await env.dispose();
  }
  await benchWebhooksCpu(workers);
}
