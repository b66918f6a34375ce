// The outbox wakes the relay at commit: the trigger's NOTIFY arrives only for committed events, and the
// worker's listener relays on it, comes back after its connection is cut, and relays what committed
// meanwhile as soon as it is back.
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOutboxListener, WEBHOOK_OUTBOX_CHANNEL } from '../../src/jobs/outbox-listener.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { waitFor } from '../helpers/process.js';

let db: TestDatabase;
let client: pg.Client;
let orgId: number;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const org = await client.query(`INSERT INTO "Organization" (name, "updated") VALUES ('Outbox', now()) RETURNING id`);
  orgId = org.rows[0].id;
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

const insertEvent = (c: pg.Client) =>
  c.query(`INSERT INTO "WebhookEvent" ("organizationId", type, data) VALUES ($1, 'webhook.test', '{}')`, [orgId]);

describe('the webhook outbox trigger', () => {
  it('notifies at commit, and not for a rolled-back event or an insert of no rows', async () => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query(`LISTEN ${WEBHOOK_OUTBOX_CHANNEL}`);
    try {
      await client.query('BEGIN');
      await insertEvent(client);
      await client.query('ROLLBACK');
      // A marker notification sent after the rollback: once it is heard, anything sent before it was too.
      await client.query(`NOTIFY marker`);
      await listener.query('LISTEN marker');
      await client.query(`NOTIFY marker`);
      await waitFor(async () => heard.includes('marker'), 5_000, 10);
      expect(heard.filter((c) => c === WEBHOOK_OUTBOX_CHANNEL)).toEqual([]);

      // An INSERT of no rows (a Run's event when its organization has no webhook) wakes nobody.
      await client.query(
        `INSERT INTO "WebhookEvent" ("organizationId", type, data) SELECT $1, 'webhook.test', '{}' WHERE false`,
        [orgId],
      );
      await client.query(`NOTIFY marker, 'empty'`);
      await waitFor(async () => heard.filter((c) => c === 'marker').length >= 2, 5_000, 10);
      expect(heard.filter((c) => c === WEBHOOK_OUTBOX_CHANNEL)).toEqual([]);

      await client.query('BEGIN');
      await insertEvent(client);
      await insertEvent(client);
      expect(heard.filter((c) => c === WEBHOOK_OUTBOX_CHANNEL)).toEqual([]);
      await client.query('COMMIT');
      await waitFor(async () => heard.includes(WEBHOOK_OUTBOX_CHANNEL), 5_000, 10);
    } finally {
      await listener.end();
    }
  });
});

describe("the worker's outbox listener", () => {
  it('relays on each commit, and again after its connection was cut', { timeout: 30_000 }, async () => {
    let passes = 0;
    const listener = startOutboxListener({
      databaseUrl: db.url,
      relay: async () => {
        passes += 1;
      },
      log: pino({ level: 'silent' }),
    });
    try {
      // Once connected it relays what may have committed while it was not listening.
      await waitFor(async () => passes >= 1, 10_000, 10);
      const before = passes;
      await insertEvent(client);
      await waitFor(async () => passes > before, 5_000, 10);

      // Cut its connection (as a database restart would): it reconnects and relays at once.
      const cut = await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query = $2`,
        [db.name, `LISTEN ${WEBHOOK_OUTBOX_CHANNEL}`],
      );
      expect(cut.rowCount).toBe(1);
      const afterCut = passes;
      await waitFor(async () => passes > afterCut, 15_000, 50);
      const reconnected = passes;
      await insertEvent(client);
      await waitFor(async () => passes > reconnected, 5_000, 10);
    } finally {
      await listener.close();
    }
  });
});
