// An Agent's definition problems are shown where users look: in the create and update answers and
// in the 422 that refuses to start an Invalid Agent, each naming the selector or field at fault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../src/services/identity/bootstrap.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
let org: BootstrapResult;

const valid = {
  startUrl: 'https://example.com/',
  list: {
    selector: 'div.item',
    fields: [
      { name: 'title', selector: 'h3' },
      { name: 'price', selector: '.price' },
    ],
  },
  export: { format: 'csv' },
};
const invalid = {
  ...valid,
  list: {
    selector: 'div.item',
    fields: [
      { name: 'title', selector: 'h3 a[' },
      { name: 'title', selector: '.price' },
    ],
  },
};

beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
});
afterAll(async () => ctx?.close());

describe('definition problems', () => {
  it('are listed in the create answer, the update answer and the 422 on start', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/agent',
      headers: auth(org.apiKey),
      payload: { name: 'Broken', spaceId: org.spaceId, definition: invalid },
    });
    expect(created.statusCode, created.body).toBe(201);
    const agent = created.json();
    expect(agent.validationStatus).toBe(2);
    expect(agent.problems).toHaveLength(2);
    expect(agent.problems).toEqual(
      expect.arrayContaining([
        "duplicate field name 'title'",
        expect.stringContaining("list.fields[0].selector: invalid CSS selector 'h3 a['"),
      ]),
    );

    const renamed = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/agent/${agent.id}`,
      headers: auth(org.apiKey),
      payload: { name: 'Still broken' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().problems).toEqual(agent.problems);

    const start = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/agent/${agent.id}/start`,
      headers: auth(org.apiKey),
      payload: {},
    });
    expect(start.statusCode).toBe(422);
    expect(start.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(start.json()).toMatchObject({ status: 422, errorCode: 'AGENT_INVALID', problems: agent.problems });
    expect(start.json().detail).toContain('list.fields[0].selector');

    const fixed = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/agent/${agent.id}`,
      headers: auth(org.apiKey),
      payload: { definition: valid },
    });
    expect(fixed.statusCode).toBe(200);
    expect(fixed.json()).toMatchObject({ validationStatus: 3, problems: [] });
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/api/v1/agent/${agent.id}`, headers: auth(org.apiKey) })).json(),
    ).not.toHaveProperty('problems');
  });
});
