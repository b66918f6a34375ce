// POST /api/v1/schedules/preview: the description and next five fire times of a Schedule before it is
// saved (the console shows them in its Schedule form), validated exactly as a create is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { expectBadRequest, expectProblem } from '../helpers/assertions.js';
import { createAgent } from '../helpers/runs.js';

// Friday 2026-03-27 10:00 UTC: Europe/Paris moves to summer time on Sunday the 29th.
const NOW = Date.parse('2026-03-27T10:00:00.000Z');
let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(async () => {
  ctx = await createTestContext({ clock: { now: () => new Date(NOW) } });
  org = await ctx.bootstrap();
});
afterAll(async () => ctx?.close());

const preview = (payload: object, key: string | null = org.apiKey) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/v1/schedules/preview',
    headers: key ? auth(key) : {},
    payload,
  });

describe('a Schedule preview', () => {
  it('describes a CRON Schedule in its time zone and lists its next five fire times across a DST change', async () => {
    const res = await preview({ scheduleType: 3, cronExpression: '30 6 * * *', timezone: 'Europe/Paris' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      description: 'At 06:30 (Europe/Paris)',
      nextFireTimes: [
        '2026-03-28T05:30:00.000Z',
        '2026-03-29T04:30:00.000Z',
        '2026-03-30T04:30:00.000Z',
        '2026-03-31T04:30:00.000Z',
        '2026-04-01T04:30:00.000Z',
      ],
    });
  });

  it('gives the description and first fire time a saved Schedule then shows', async () => {
    const body = { scheduleType: 2, runEveryCount: 2, runEveryPeriod: 2, timezone: 'America/New_York' };
    const shown = (await preview(body)).json();
    expect(shown.nextFireTimes).toEqual([
      '2026-03-27T12:00:00.000Z',
      '2026-03-27T14:00:00.000Z',
      '2026-03-27T16:00:00.000Z',
      '2026-03-27T18:00:00.000Z',
      '2026-03-27T20:00:00.000Z',
    ]);
    const agent = await createAgent(ctx.app, org.apiKey, org.spaceId, {
      startUrl: 'https://example.com/',
      list: { selector: 'li', fields: [{ name: 't', selector: 'a' }] },
    });
    const saved = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/schedules`,
      headers: auth(org.apiKey),
      payload: { name: 'Every 2 hours', ...body },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    expect(saved.json().localSchedule).toBe(shown.description);
    expect(saved.json().nextRunTime).toBe(shown.nextFireTimes[0]);
  });

  it('lists the one fire time of a RunOnce Schedule', async () => {
    const res = await preview({ scheduleType: 1, startTime: '2026-04-02T08:00:00Z', timezone: 'UTC' });
    expect(res.json()).toEqual({
      description: 'Once, at 2026-04-02 08:00 (UTC)',
      nextFireTimes: ['2026-04-02T08:00:00.000Z'],
    });
  });

  it('refuses what a create refuses, with the same errorCodes', async () => {
    expectBadRequest(await preview({ scheduleType: 3, cronExpression: '61 * * * *' }), 'SCHEDULE_INVALID_CRON');
    expectBadRequest(
      await preview({ scheduleType: 3, cronExpression: '0 6 * * *', timezone: 'Mars/Olympus' }),
      'SCHEDULE_INVALID_TIMEZONE',
    );
    expectBadRequest(await preview({ scheduleType: 3 }), 'SCHEDULE_MISSING_FIELD');
    expectBadRequest(await preview({ scheduleType: 2, runEveryPeriod: 2 }), 'SCHEDULE_MISSING_FIELD');
    expectBadRequest(
      await preview({ scheduleType: 1, startTime: new Date(NOW + 30_000).toISOString() }),
      'SCHEDULE_START_TIME_TOO_SOON',
    );
    expectBadRequest(
      await preview({ scheduleType: 2, runEveryCount: 1, runEveryPeriod: 3, startTime: '2026-03-01T00:00:00Z' }),
      'SCHEDULE_START_TIME_IN_PAST',
    );
    expectBadRequest(await preview({ scheduleType: 0 }), 'VALIDATION_FAILED');
    expectBadRequest(await preview({ scheduleType: 3, cronExpression: '* * * * *', name: 'x' }), 'VALIDATION_FAILED');
  });

  it('needs credentials', async () => {
    expectProblem(await preview({ scheduleType: 3, cronExpression: '* * * * *' }, null), 401, 'UNAUTHENTICATED');
  });
});
